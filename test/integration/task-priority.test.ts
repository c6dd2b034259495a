import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskMessage } from '../../src/matching/task-message.js';
import { TaskQueues } from '../../src/matching/task-queues.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/**
 * SWF taskPriority orders a task list: higher first, first in first out within a priority. Tests of
 * the task-list layer itself use runIds unique to their domain: a task's msgID is made of them, and
 * JetStream drops a repeated msgID for two minutes.
 */
let e: TestEngine;
const call = (action: string, input: object) => e.client.call(action, input);
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

const WF = { name: 'prio-wf', version: '1' };
const ACT = { name: 'prio-act', version: '1' };
/** Enqueued in this order; polls must answer in ORDER. */
const PRIORITIES = ['0', '5', '-3', '5', '10'];
const ORDER = ['t4_p10', 't1_p5', 't3_p5', 't0_p0', 't2_p-3'];

async function freshDomain(label: string): Promise<string> {
  const domain = uniqueDomain(label);
  await call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
  await call('RegisterWorkflowType', {
    domain, ...WF, defaultTaskList: { name: 'deciders' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60',
  });
  await call('RegisterActivityType', {
    domain, ...ACT, defaultTaskList: { name: 'unused' }, defaultTaskScheduleToStartTimeout: '600',
    defaultTaskStartToCloseTimeout: '60', defaultTaskScheduleToCloseTimeout: '600', defaultTaskHeartbeatTimeout: 'NONE',
  });
  return domain;
}

describe('task priority', () => {
  it('activity tasks: polls answer 10, 5, 5 (in the order scheduled), 0, -3; the count stays exact', async () => {
    const domain = await freshDomain('prio-a');
    await call('StartWorkflowExecution', { domain, workflowId: 'w', workflowType: WF });
    const d = await call('PollForDecisionTask', { domain, taskList: { name: 'deciders' }, afPollTimeoutMs: 5000 });
    await call('RespondDecisionTaskCompleted', {
      taskToken: d.taskToken,
      decisions: PRIORITIES.map((taskPriority, i) => ({
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId: `t${i}_p${taskPriority}`, taskList: { name: 'work' }, taskPriority },
      })),
    });
    const list = { domain, taskList: { name: 'work' } };
    expect(await call('CountPendingActivityTasks', list)).toEqual({ count: 5, truncated: false });
    const got: string[] = [];
    for (let i = 0; i < PRIORITIES.length; i++) {
      got.push((await call('PollForActivityTask', { ...list, afPollTimeoutMs: 5000 })).activityId);
      expect(await call('CountPendingActivityTasks', list)).toEqual({ count: PRIORITIES.length - 1 - i, truncated: false });
    }
    expect(got).toEqual(ORDER);
  }, 60_000);

  it('decision tasks: StartWorkflowExecution taskPriority orders a list nobody polled yet', async () => {
    const domain = await freshDomain('prio-d');
    const list = { domain, taskList: { name: 'prio-deciders' } };
    for (const [i, taskPriority] of PRIORITIES.entries()) {
      await call('StartWorkflowExecution', { domain, workflowId: `t${i}_p${taskPriority}`, workflowType: WF, taskList: list.taskList, taskPriority });
    }
    expect(await call('CountPendingDecisionTasks', list)).toEqual({ count: 5, truncated: false });
    const got: string[] = [];
    for (let i = 0; i < PRIORITIES.length; i++) got.push((await call('PollForDecisionTask', { ...list, afPollTimeoutMs: 5000 })).workflowExecution.workflowId);
    expect(got).toEqual(ORDER);
    expect(await call('CountPendingDecisionTasks', list)).toEqual({ count: 0, truncated: false });
  }, 60_000);

  it('a waiting long poll gets a task queued by another node at once, whatever its priority', async () => {
    await onTwoNodes('prio-wake', 'wake', async ({ poller, other, domain, errors, task }) => {
      for (const [i, priority] of [-3, 2147483647, -2147483648, 0, 7].entries()) {
        const polling = poller.poll(domain, 'a', 'wake', Date.now() + 30_000, taken);
        await new Promise((r) => setTimeout(r, 300));
        const queuedAt = Date.now();
        await other.enqueue(task(priority, i + 1));
        expect(await polling).toMatchObject({ workflowId: `w${i + 1}`, priority });
        // The feeders would sleep 10 s without the arrival; a loaded machine still answers well within that.
        expect(Date.now() - queuedAt).toBeLessThan(3000);
      }
      // The last task's ack reaches the server a moment after the poll answers (it is not awaited).
      await until(async () => (await poller.pending(domain, 'a', 'wake')) === 0, { timeoutMs: 10_000, intervalMs: 50, message: 'no task left pending' });
      expect(errors).toEqual([]);
    });
  }, 60_000);

  it('a priority idle past the consumer idle time, on a list polled all along, is served again', async () => {
    const { jsm, subjects } = e.node.nats;
    const consumers = async () => (await jsm.streams.info(subjects.streams.tasks)).state.consumer_count;
    await onTwoNodes('prio-idle', 'idle', async ({ poller, other, domain, errors, task }) => {
      const before = await consumers();
      await other.enqueue(task(7, 1));
      expect(await poller.poll(domain, 'a', 'idle', Date.now() + 10_000, taken)).toMatchObject({ workflowId: 'w1' });
      expect(await consumers()).toBe(before + 1);
      // A poll waits all along (the list stays in use here) while the server removes the idle priority's consumer.
      const polling = poller.poll(domain, 'a', 'idle', Date.now() + 30_000, taken);
      await until(async () => (await consumers()) === before, { timeoutMs: 20_000, intervalMs: 100, message: 'priority-7 consumer removed' });
      await other.enqueue(task(7, 2));
      expect(await polling).toMatchObject({ workflowId: 'w2' });
      expect(errors).toEqual([]);
    }, 1000);
  }, 60_000);

  it('a higher task put back by another node goes out before the lower ones still queued', async () => {
    await onTwoNodes('prio-back', 'back', async ({ poller, other, domain, task }) => {
      await other.enqueue(task(10, 1));
      // The other node's poller takes the priority-10 task and fails to start it 1.5 s later: it goes back.
      let handedBack!: () => void;
      const back = new Promise<void>((r) => { handedBack = r; });
      const failed = other.poll(domain, 'a', 'back', Date.now() + 10_000, async () => {
        await new Promise((r) => setTimeout(r, 1500));
        handedBack();
        throw new Error('owner unreachable');
      }).catch(() => 'failed');
      await new Promise((r) => setTimeout(r, 200));
      for (let n = 2; n <= 41; n++) await other.enqueue(task(0, n));
      // This node drains the list, 100 ms per task: 4 s of priority-0 work.
      const got: string[] = [];
      const slow = async (t: TaskMessage) => { await new Promise((r) => setTimeout(r, 100)); return t; };
      let backAt = 0;
      void back.then(() => { backAt = got.length; });
      while (got.length < 41) {
        const t = await poller.poll(domain, 'a', 'back', Date.now() + 5000, slow);
        if (!t) break;
        got.push(t.workflowId);
      }
      expect(await failed).toBe('failed');
      expect(got).toHaveLength(41);
      // Found by the next look at the stream (at most a second, ~10 tasks here), not after all 40.
      expect(got.indexOf('w1') - backAt).toBeLessThan(25);
    });
  }, 60_000);
});

interface TwoNodes {
  /** The layer polled, and one that queues (and in one test polls) as another node would. */
  poller: TaskQueues;
  other: TaskQueues;
  domain: string;
  /** What the poller's feeders reported. */
  errors: unknown[];
  task(priority: number, n: number): TaskMessage;
}

const taken = (t: TaskMessage) => Promise.resolve(t);

/** Two task-list layers on the engine's NATS, as on two nodes, for one fresh domain and task list. */
async function onTwoNodes(label: string, taskList: string, body: (x: TwoNodes) => Promise<void>, pollerIdleMs?: number): Promise<void> {
  const { nc, js, jsm, subjects } = e.node.nats;
  const errors: unknown[] = [];
  const poller = new TaskQueues(nc, js, jsm, subjects, (err) => errors.push(err), undefined, pollerIdleMs);
  const other = new TaskQueues(nc, js, jsm, subjects);
  const domain = uniqueDomain(label);
  const task = (priority: number, n: number): TaskMessage =>
    ({ domain, workflowId: `w${n}`, runId: `${domain}-r${n}`, partition: 0, kind: 'a', taskList, scheduledEventId: n, priority });
  try {
    await body({ poller, other, domain, errors, task });
  } finally {
    poller.close();
    other.close();
  }
}
