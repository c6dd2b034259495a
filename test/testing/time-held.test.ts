import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/engine/virtual-clock.js';
import type { Operation, ServiceContext } from '../../src/service/context.js';
import { timeHeld } from '../../src/service/time-held.js';
import { until } from '../helpers/until.js';

let clock: VirtualClock | undefined;
afterEach(() => clock?.stop());

const slow = (ms: number): Operation => () => new Promise((r) => setTimeout(() => r({}), ms));
const ctx = {} as ServiceContext;

describe('timeHeld', () => {
  it('holds a time-skipping clock while a change is served, not while a long poll waits or a read is answered', async () => {
    clock = new VirtualClock({ quietMs: 20 });
    const c = clock;
    const ops = timeHeld({ SignalWorkflowExecution: slow(300), PollForActivityTask: slow(300), DescribeWorkflowExecution: slow(5) }, c.skipping);
    let fired = false;
    c.setTimeout(() => { fired = true; }, 86_400_000);

    await ops.SignalWorkflowExecution!(ctx, {});
    expect(fired, 'time jumped while a signal was being served').toBe(false);

    const poll = ops.PollForActivityTask!(ctx, {});
    await until(() => fired, { timeoutMs: 2000, message: 'the skip while a poll is held' });
    await poll;

    // A test polling for a result every few ms must not stop time either.
    let readFired = false;
    c.setTimeout(() => { readFired = true; }, 86_400_000);
    for (let i = 0; i < 100 && !readFired; i++) await ops.DescribeWorkflowExecution!(ctx, {});
    expect(readFired, 'time stood still under a stream of reads').toBe(true);
  });

  it('leaves the table as it is without a time-skipping clock', () => {
    const table = { A: slow(1) };
    expect(timeHeld(table, undefined)).toBe(table);
  });
});
