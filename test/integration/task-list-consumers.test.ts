import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

const IDLE_MS = 2000;
let e: TestEngine;
const call = (action: string, input: object) => e.client.call(action, input);

beforeAll(async () => {
  e = await startTestEngine({ node: { taskConsumerIdleMs: IDLE_MS } });
});
afterAll(async () => { await e?.stop(); });

async function consumerCount(): Promise<number> {
  const { jsm, subjects } = { jsm: e.node.nats.jsm, subjects: e.node.nats.subjects };
  return (await jsm.streams.info(subjects.streams.tasks)).state.consumer_count;
}

async function inBatches(n: number, batch: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += batch) await Promise.all(Array.from({ length: Math.min(batch, n - i) }, (_, j) => fn(i + j)));
}

describe('task-list consumers', () => {
  it('10,000 distinct task lists counted leave no consumer behind', async () => {
    const domain = uniqueDomain('tl-count');
    await call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const baseline = await consumerCount();
    await inBatches(10_000, 200, async (i) => {
      const r = await call(i % 2 ? 'CountPendingActivityTasks' : 'CountPendingDecisionTasks', { domain, taskList: { name: `list-${i}` } });
      expect(r).toEqual({ count: 0, truncated: false });
    });
    expect(await consumerCount()).toBe(baseline);
  }, 120_000);

  it('polls make consumers only for priorities holding tasks; they go after the idle time; counts stay exact without them', async () => {
    const domain = uniqueDomain('tl-poll');
    await call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const wt = { name: 'wf', version: '1' };
    await call('RegisterWorkflowType', { domain, ...wt, defaultTaskList: { name: 'deciders' }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE' });
    const baseline = await consumerCount();
    // 200 lists polled once each (1 s polls, nothing comes): waiting on an empty list makes no consumer.
    await inBatches(200, 100, (i) => call('PollForActivityTask', { domain, taskList: { name: `p-${i}` }, afPollTimeoutMs: 1000 }));
    expect(await consumerCount()).toBe(baseline);

    // Queued tasks (priorities 0, 0, 7) are counted with no consumer; a poll makes one for the
    // priority it takes from, and polls go on past its expiry.
    for (let i = 0; i < 3; i++) await call('StartWorkflowExecution', { domain, workflowId: `w${i}`, workflowType: wt, taskPriority: i === 2 ? '7' : '0' });
    const pending = async () => (await call('CountPendingDecisionTasks', { domain, taskList: { name: 'deciders' } })).count as number;
    expect(await pending()).toBe(3);
    expect(await consumerCount()).toBe(baseline);
    const poll = async () => (await call('PollForDecisionTask', { domain, taskList: { name: 'deciders' }, afPollTimeoutMs: 5000 })).workflowExecution?.workflowId;
    // This node owns the runs and holds their tasks, so its polls hand them out with no consumer;
    // a consumer is made only to pull from JetStream (tasks no poller here holds), one per priority.
    expect(await poll()).toBe('w2');
    expect(await pending()).toBe(2);
    expect(await consumerCount()).toBe(baseline);
    await until(async () => (await consumerCount()) === baseline, { timeoutMs: 20_000, intervalMs: 250, message: 'consumer of the priority-7 lane gone' });
    expect(await poll()).toBe('w0');
    expect(await poll()).toBe('w1');
    expect(await pending()).toBe(0);
    await until(async () => (await consumerCount()) === baseline, { timeoutMs: 20_000, intervalMs: 250, message: 'consumers of the decider list gone' });
    // The lists polled once are forgotten after half the idle time (their tasks were held here, so
    // no consumer had to go first).
    await until(() => e.node.ctx.queues.localLists <= 2, { timeoutMs: 20_000, intervalMs: 250, message: 'idle task lists forgotten' });
  }, 90_000);
});
