import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config.js';

describe('resolveOptions: the engine waits', () => {
  it('defaults to SWF\'s 60 s poll hold, a 70 s owner timeout, 15 s for an ownerless partition, 5 s drain, 64 rebuilds at once', () => {
    const c = resolveOptions({}, {});
    expect({ pollHoldMs: c.pollHoldMs, ownerTimeoutMs: c.ownerTimeoutMs, noOwnerRetryMs: c.noOwnerRetryMs, apiDrainMs: c.apiDrainMs, recoveryConcurrency: c.recoveryConcurrency })
      .toEqual({ pollHoldMs: 60_000, ownerTimeoutMs: 70_000, noOwnerRetryMs: 15_000, apiDrainMs: 5000, recoveryConcurrency: 64 });
  });

  it('reads each from its environment variable, and an option beats the variable', () => {
    const c = resolveOptions({ apiDrainMs: 100 }, {
      AF_POLL_HOLD_MS: '20000', AF_OWNER_TIMEOUT_MS: '30000', AF_NO_OWNER_RETRY_MS: '2000', AF_API_DRAIN_MS: '9000', AF_RECOVERY_CONCURRENCY: '8',
    });
    expect([c.pollHoldMs, c.ownerTimeoutMs, c.noOwnerRetryMs, c.apiDrainMs, c.recoveryConcurrency]).toEqual([20_000, 30_000, 2000, 100, 8]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('refuses an owner timeout that does not outlast the poll hold by 10 s, naming both', () => {
    expect(() => resolveOptions({}, { AF_OWNER_TIMEOUT_MS: '65000' })).toThrow(/AF_OWNER_TIMEOUT_MS \(65000\) must be at least the poll hold AF_POLL_HOLD_MS \(60000\) \+ 10000 ms/);
    expect(() => resolveOptions({ ownerTimeoutMs: 69_999 }, {})).toThrow(/AF_OWNER_TIMEOUT_MS/);
    // A shorter hold allows a shorter owner timeout.
    expect(resolveOptions({ pollHoldMs: 5000, ownerTimeoutMs: 15_000 }, {}).ownerTimeoutMs).toBe(15_000);
  });

  it('keeps the poll hold within 1 to 60 s (clients give up on a poll after 70 s)', () => {
    expect(() => resolveOptions({}, { AF_POLL_HOLD_MS: '61000', AF_OWNER_TIMEOUT_MS: '90000' })).toThrow(/AF_POLL_HOLD_MS must be an integer from 1000 to 60000, got 61000/);
    expect(() => resolveOptions({}, { AF_POLL_HOLD_MS: '999' })).toThrow(/AF_POLL_HOLD_MS/);
    expect(() => resolveOptions({}, { AF_POLL_HOLD_MS: 'soon' })).toThrow(/AF_POLL_HOLD_MS must be an integer from 1000 to 60000, got soon/);
  });

  it('in a cluster, refuses an ownerless-partition wait that does not outlast a lease', () => {
    expect(() => resolveOptions({ cluster: true }, { AF_NO_OWNER_RETRY_MS: '6000' })).toThrow(/AF_NO_OWNER_RETRY_MS \(6000\) must exceed the lease TTL AF_LEASE_TTL_MS \(6000\)/);
    expect(resolveOptions({ cluster: true, leaseTtlMs: 2000 }, { AF_NO_OWNER_RETRY_MS: '6000' }).noOwnerRetryMs).toBe(6000);
    // The default follows a long lease TTL.
    expect(resolveOptions({ cluster: true, leaseTtlMs: 20_000 }, {}).noOwnerRetryMs).toBe(40_000);
    // One node owns every partition: nothing waits for a lease.
    expect(resolveOptions({}, { AF_NO_OWNER_RETRY_MS: '0' }).noOwnerRetryMs).toBe(0);
  });

  it('refuses a recovery concurrency outside 1–1024 and a negative drain', () => {
    expect(() => resolveOptions({}, { AF_RECOVERY_CONCURRENCY: '0' })).toThrow(/AF_RECOVERY_CONCURRENCY must be an integer from 1 to 1024, got 0/);
    expect(() => resolveOptions({ recoveryConcurrency: 2000 }, {})).toThrow(/AF_RECOVERY_CONCURRENCY/);
    expect(() => resolveOptions({}, { AF_API_DRAIN_MS: '-1' })).toThrow(/AF_API_DRAIN_MS must be an integer ≥ 0, got -1/);
  });
});

describe('resolveOptions: where nats:publish Tasks publish', () => {
  it('defaults to <prefix>.sfn.out and takes AF_SFN_NATS_PUBLISH_PREFIX', () => {
    expect(resolveOptions({}, {}).sfnNatsPublishPrefix).toBe('af.sfn.out');
    expect(resolveOptions({ prefix: 'prod' }, {}).sfnNatsPublishPrefix).toBe('prod.sfn.out');
    expect(resolveOptions({}, { AF_SFN_NATS_PUBLISH_PREFIX: 'jobs.out' }).sfnNatsPublishPrefix).toBe('jobs.out');
  });

  it('refuses a prefix with wildcards or inside the engine\'s own subjects', () => {
    for (const bad of ['af.sfn.>', 'a.*', 'af', 'af.hist', 'af.api.x', 'af.part', '_INBOX.x', '$JS.API', 'a..b', 'has space']) {
      expect(() => resolveOptions({ sfnNatsPublishPrefix: bad }, {}), bad).toThrow(/AF_SFN_NATS_PUBLISH_PREFIX must be a literal subject outside the engine's own/);
    }
  });
});
