import type { JetStreamClient } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskLanes } from '../../src/matching/task-lanes.js';
import type { TaskMessage } from '../../src/matching/task-message.js';
import { TaskQueues } from '../../src/matching/task-queues.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/**
 * CountPending* of a task list whose owner holds a task (no poller waited when it was scheduled):
 * it counts once before, while and after the owner publishes it to AF_TASKS. The stream stores the
 * message before the owner reads its ack; counted there and as held, the count was one too high
 * for that moment (another node's test, waiting for a count, then took it for a task still to come).
 */
let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

describe('the count of a task its owner holds', () => {
  it('is one before, while and after the task is published', async () => {
    const { nc, js, jsm, subjects } = e.node.nats;
    // The real JetStream client, whose acks come back only when the test lets them.
    let letAcksThrough!: () => void;
    const acksHeld = new Promise<void>((r) => { letAcksThrough = r; });
    const slowAcks = new Proxy(js, {
      get: (target, p, receiver) => p === 'publish'
        ? async (...args: Parameters<JetStreamClient['publish']>) => { const ack = await target.publish(...args); await acksHeld; return ack; }
        : Reflect.get(target, p, receiver),
    });
    const owner = new TaskQueues(nc, slowAcks, jsm, subjects);
    const domain = uniqueDomain('held-count');
    const task: TaskMessage = { domain, workflowId: 'w1', runId: `${domain}-r1`, partition: 0, kind: 'a', taskList: 'count', scheduledEventId: 5, priority: 0 };
    const stored = async () => [...(await TaskLanes.counts(jsm, subjects, domain, 'a', 'count')).counts.values()].reduce((a, b) => a + b, 0);
    try {
      owner.dispatch(task);
      expect(await owner.pending(domain, 'a', 'count')).toBe(1);
      expect(await stored()).toBe(0);

      // Another node's pollers starve and ask for the list's tasks: the owner publishes it.
      await nc.flush();
      nc.publish(subjects.taskDemand(domain, 'a', 'count'), 'other-node 1');
      await until(async () => (await stored()) === 1, { timeoutMs: 5000, intervalMs: 10, message: 'task stored' });
      // Stored, its ack not yet read by the owner: a count now waits for the ack and counts it once.
      const counting = owner.pending(domain, 'a', 'count');
      setTimeout(letAcksThrough, 100);
      expect(await counting).toBe(1);
      expect(await owner.pending(domain, 'a', 'count')).toBe(1);
    } finally {
      letAcksThrough();
      owner.close();
    }
  }, 30_000);
});
