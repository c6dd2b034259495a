import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { isFault } from '../../src/protocol/faults.js';
import { ENGINE_INBOX_PREFIX } from '../../src/nats/connect-options.js';
import { ReplyGuard } from '../../src/nats/reply-subjects.js';
import { subjects } from '../../src/nats/subjects.js';
import { Router, type RouterTiming } from '../../src/engine/router.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

declare module '../../src/engine/owner-ops.js' {
  interface OwnerOps {
    /** This test's owner op. */
    echo(p: string): Promise<{ echoed: string }>;
  }
}

let server: NatsServerHandle;
const conns: NatsConnection[] = [];
const log = pino({ level: 'silent' });
const s = subjects('rno');

/** A router on its own engine connection with one owner op, `echo`; it owns no partition until told. */
async function router(timing: RouterTiming): Promise<Router> {
  const nc = await connect({ servers: server.url, inboxPrefix: ENGINE_INBOX_PREFIX });
  conns.push(nc);
  // No execution kind's ops here: only the test's own.
  const r = new Router(nc, s, 4, log, new ReplyGuard([ENGINE_INBOX_PREFIX], () => undefined, log), timing);
  r.register({ echo: async (p: string) => ({ echoed: p }) });
  return r;
}

beforeAll(async () => { server = await startNatsServer(); });
afterAll(async () => {
  for (const nc of conns) await nc.close();
  await server.stop();
});

describe('Router: a partition with no owner', () => {
  it('retries for the configured window, then answers ServiceUnavailable', async () => {
    const caller = await router({ noOwnerRetryMs: 600 });
    const t0 = performance.now();
    const err = await caller.call(1, 'echo', 'hi').then(() => undefined, (e: unknown) => e);
    const ms = performance.now() - t0;
    expect(isFault(err, 'ServiceUnavailable')).toBe(true);
    expect((err as Error).message).toBe('partition 1 has no owner right now');
    // 50 ms doubling with jitter: it gives up at the first failure after the 600 ms window.
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(3000);
  });

  it('reaches a node that starts serving the partition while the call waits', async () => {
    const caller = await router({ noOwnerRetryMs: 10_000 });
    const owner = await router({});
    setTimeout(() => owner.serve(2), 400);
    expect(await caller.call(2, 'echo', 'late')).toEqual({ echoed: 'late' });
    owner.stop();
  });

  it('serves in-process once the partition comes to the calling node during the wait', async () => {
    const caller = await router({ noOwnerRetryMs: 10_000 });
    setTimeout(() => caller.serve(3), 300);
    expect(await caller.call(3, 'echo', 'here')).toEqual({ echoed: 'here' });
    caller.stop();
  });

  it('gives up on an owner that does not answer after the owner timeout', async () => {
    const caller = await router({ ownerTimeoutMs: 500 });
    const nc = conns[0]!;
    // Something holds the partition's subject but never answers (an owner stuck past its timeout).
    const sub = nc.subscribe(s.partition(0, 'echo'), { callback: () => undefined });
    const t0 = performance.now();
    const err = await caller.call(0, 'echo', 'x').then(() => undefined, (e: unknown) => e);
    expect(isFault(err, 'ServiceUnavailable')).toBe(true);
    expect((err as Error).message).toBe('the owner of partition 0 did not answer in time');
    expect(performance.now() - t0).toBeLessThan(5000);
    sub.unsubscribe();
  });
});
