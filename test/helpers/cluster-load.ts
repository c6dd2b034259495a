import { expect } from 'vitest';
import { ORDER_STEPS, registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import { ActorFlowClient, type WireEvent } from '../../src/sdk/client.js';
import type { EngineCluster } from './engine-cluster.js';
import { uniqueDomain } from './engine.js';
import {
  find, historyProblems, missingAnswers, retryingInternal, newTracking, startOrderFleet, startOrders, waitClosed, type Run, type Tracking,
} from './resilient-orders.js';
import { until } from './until.js';

export interface LoadResult {
  runs: Run[];
  t: Tracking;
  /** ms from the first start to the last close. */
  elapsedMs: number;
}

const TIMER_EVERY = 5;
const timerRun = (workflowId: string) => Number(workflowId.slice(-3)) % TIMER_EVERY === 0;

/**
 * Runs `count` order workflows (every 5th with a 2 s timer) through the cluster with the NATS SDK;
 * once `disruptAfter` of them completed, calls `disrupt` (kill or restart something) while the
 * rest run; then waits for all to close and checks every history: complete, consecutive eventIds,
 * no duplicate, every OK answer present.
 */
export async function runOrdersThrough(c: EngineCluster, opts: {
  count: number; disruptAfter: number; disrupt: (t: Tracking) => Promise<void>; closeTimeoutMs: number;
}): Promise<LoadResult> {
  const client = await ActorFlowClient.connect({ connection: c.nc });
  const domain = uniqueDomain('cluster');
  await registerOrderTypes(client, domain);
  const t = newTracking();
  const fleet = await startOrderFleet(client, domain, t, { withTimer: timerRun, timerSeconds: 2, deciders: 12, workers: 24 });
  try {
    const ids = Array.from({ length: opts.count }, (_, i) => `order-${String(i).padStart(3, '0')}`);
    const t0 = Date.now();
    const runs: Run[] = [];
    for (let i = 0; i < ids.length; i += 50) runs.push(...await startOrders(client, domain, ids.slice(i, i + 50)));
    await until(() => t.closed.size >= opts.disruptAfter, { timeoutMs: 60_000, intervalMs: 50, message: `${opts.disruptAfter} completed orders` });
    await opts.disrupt(t);
    await waitClosed(client, domain, runs, opts.closeTimeoutMs)
      .finally(() => console.log(`client errors: ${JSON.stringify(Object.fromEntries(t.errors))}`));
    const elapsedMs = Date.now() - t0;
    console.log(`all ${opts.count} workflows closed ${elapsedMs} ms after the first start`);
    const histories = new Map<string, WireEvent[]>();
    const read = (run: Run) => retryingInternal(() => client.history(domain, run));
    const readStart = Date.now();
    let slowest = 0;
    const timed = async (run: Run) => { const t1 = Date.now(); const ev = await read(run); slowest = Math.max(slowest, Date.now() - t1); return ev; };
    for (let i = 0; i < runs.length; i += 20) {
      for (const [j, events] of (await Promise.all(runs.slice(i, i + 20).map(timed))).entries()) histories.set(runs[i + j]!.runId, events);
    }
    console.log(`read ${runs.length} histories in ${Date.now() - readStart} ms (slowest ${slowest} ms)`);
    let timers = 0;
    for (const run of runs) {
      const events = histories.get(run.runId)!;
      expect(historyProblems(events), run.workflowId).toEqual([]);
      expect(events.at(-1)!.eventType, run.workflowId).toBe('WorkflowExecutionCompleted');
      expect(events.filter((e) => e.eventType === 'ActivityTaskCompleted').length, run.workflowId).toBe(ORDER_STEPS.length);
      if (timerRun(run.workflowId)) {
        expect(find(events, 'TimerFired'), run.workflowId).toBeDefined();
        timers++;
      }
    }
    expect(timers).toBe(Math.ceil(opts.count / TIMER_EVERY));
    expect(missingAnswers(t, histories)).toEqual([]);
    return { runs, t, elapsedMs };
  } finally {
    await fleet.stop();
  }
}
