import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollForActivityTask } from '../../src/swf/operations/poll-for-activity-task.js';
import { pollForDecisionTask } from '../../src/swf/operations/poll-for-decision-task.js';
import { getActivityTask } from '../../src/sfn/operations/get-activity-task.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

/** ms an operation takes to answer. */
async function timed(op: () => Promise<unknown>): Promise<{ out: unknown; ms: number }> {
  const t0 = performance.now();
  const out = await op();
  return { out, ms: performance.now() - t0 };
}

describe('the node\'s poll hold (pollHoldMs)', () => {
  it('ends an empty poll of every kind after the hold, and caps the afPollTimeoutMs a client asks for', async () => {
    const domain = uniqueDomain('hold');
    await e.client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const { activityArn } = await e.client.call<{ activityArn: string }>('CreateActivity', { name: uniqueDomain('hold-act') });
    // The operations as the node runs them, with a context whose hold is 1.5 s instead of 60 s.
    const ctx = { ...e.node.ctx, pollHoldMs: 1500 };
    const polls = [
      () => pollForActivityTask(ctx, { domain, taskList: { name: 'nobody' } }),
      () => pollForDecisionTask(ctx, { domain, taskList: { name: 'nobody' }, afPollTimeoutMs: 30_000 }),
      () => getActivityTask(ctx, { activityArn }),
    ];
    for (const poll of polls) {
      const { ms } = await timed(poll);
      expect(ms).toBeGreaterThanOrEqual(1400);
      expect(ms).toBeLessThan(10_000); // far below the 30 s asked for and the 60 s default
    }
    // Asking for less than the hold still gets less.
    const short = await timed(() => pollForActivityTask({ ...e.node.ctx, pollHoldMs: 60_000 }, { domain, taskList: { name: 'nobody' }, afPollTimeoutMs: 1000 }));
    expect(short.out).toEqual({ startedEventId: 0 });
    expect(short.ms).toBeLessThan(10_000);
  });
});
