import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient, attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { NodeMetrics } from '../../src/observability/metrics.js';
import { parseProm, sampleValue, type Sample } from '../helpers/prom.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { uniqueDomain } from '../helpers/engine.js';
import { manualRuns } from '../helpers/manual-runs.js';
import { until } from '../helpers/until.js';

let server: NatsServerHandle;
let node: EngineNode;
let client: ActorFlowClient;

beforeAll(async () => {
  server = await startNatsServer();
  node = await startNode({
    natsUrl: server.url, partitions: 4, sleepAfterMs: 1000, http: { port: 0, accessKeys: {} },
    logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }),
  });
  client = await ActorFlowClient.connect({ servers: server.url });
});
afterAll(async () => {
  await client?.close();
  await node?.stop();
  await server?.stop();
});

async function scrape(): Promise<{ samples: Sample[]; get(name: string, labels?: Record<string, string>): number }> {
  const res = await fetch(`${node.http!.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = parseProm(await res.text());
  return {
    samples,
    /** The value of the one sample with exactly these labels (0 when the series is absent). */
    get: (name, labels = {}) => sampleValue(samples, name, labels),
  };
}

const N = 5;
const { start, pollDecision, pollActivity, scheduleActivity, history } = manualRuns(() => client, 'metrics');

describe('GET /metrics', () => {
  it('counts exactly what N order workflows and one activity timeout did', async () => {
    const before = await scrape();
    expect(before.get('actorflow_executions_started_total')).toBe(0);
    expect(before.get('actorflow_tasks_timed_out_total', { kind: 'activity', timeout_type: 'START_TO_CLOSE' })).toBe(0);
    expect(before.samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);

    // N order workflows, two deciders and two workers.
    const domain = uniqueDomain('metrics');
    await registerOrderTypes(client, domain);
    const p = startOrderParticipants(client, domain, { deciders: 2, workers: 2, pollTimeoutMs: 1000 });
    const histories: WireEvent[][] = [];
    try {
      const runs = await Promise.all(Array.from({ length: N }, async (_, i) => {
        const workflowId = `order-${i}`;
        const { runId } = await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, input: `{"orderId":${i}}` });
        return { workflowId, runId };
      }));
      for (const execution of runs) {
        await until(async () => (await client.call('DescribeWorkflowExecution', { domain, execution })).executionInfo.executionStatus === 'CLOSED');
        histories.push(await client.history(domain, execution));
      }
      // Idle participants hold their long polls on the node: two of each kind.
      await until(async () => {
        const m = await scrape();
        return m.get('actorflow_polls_waiting', { kind: 'decision' }) === 2 && m.get('actorflow_polls_waiting', { kind: 'activity' }) === 2;
      }, { message: 'two decision and two activity polls waiting' });
    } finally {
      await p.stop();
    }
    // Their last polls end within pollTimeoutMs.
    await until(async () => {
      const m = await scrape();
      return m.get('actorflow_polls_waiting', { kind: 'decision' }) === 0 && m.get('actorflow_polls_waiting', { kind: 'activity' }) === 0;
    }, { message: 'no poll waiting after the participants stopped' });

    // One run whose activity times out (START_TO_CLOSE 3 s): started, never answered.
    const run = await start('s2c');
    await scheduleActivity(run, { scheduleToStartTimeout: '10', startToCloseTimeout: '3', scheduleToCloseTimeout: '20', heartbeatTimeout: 'NONE' });
    await pollActivity(run);
    const during = await scrape();
    expect(during.get('actorflow_open_executions', { kind: 'swf', state: 'awake' }) + during.get('actorflow_open_executions', { kind: 'swf', state: 'asleep' })).toBe(1);
    // Idle for sleepAfterMs, the run sleeps: still open, no actor in memory.
    await until(async () => {
      const m = await scrape();
      return m.get('actorflow_open_executions', { kind: 'swf', state: 'asleep' }) === 1 && m.get('actorflow_open_executions', { kind: 'swf', state: 'awake' }) === 0;
    }, { message: 'the waiting run to sleep' });
    const asleep = await scrape();
    for (const kind of ['workflow', 'decision', 'activity', 'timer']) expect(asleep.get('actorflow_actors', { kind })).toBe(0);
    // The deadline wakes it: ActivityTaskTimedOut and a decision task; the decider fails the run.
    await until(async () => (await history(run)).some((e) => e.eventType === 'ActivityTaskTimedOut'), { message: 'ActivityTaskTimedOut' });
    const awake = await scrape();
    expect(awake.get('actorflow_open_executions', { kind: 'swf', state: 'awake' })).toBe(1);
    expect(awake.get('actorflow_actors', { kind: 'workflow' })).toBe(1);
    expect(awake.get('actorflow_actors', { kind: 'decision' })).toBe(1);
    expect(awake.get('actorflow_actors', { kind: 'activity' })).toBe(0);
    const d = await pollDecision(run);
    await client.call('RespondDecisionTaskCompleted', {
      taskToken: d.taskToken, decisions: [{ decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: 'timed out' } }],
    });
    histories.push(await history(run));
    expect(histories.at(-1)!.map((e) => e.eventType).slice(-5)).toEqual(
      ['ActivityTaskTimedOut', 'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'WorkflowExecutionFailed']);

    await until(async () => {
      const m = await scrape();
      return m.get('actorflow_open_executions', { kind: 'swf', state: 'awake' }) + m.get('actorflow_open_executions', { kind: 'swf', state: 'asleep' }) === 0;
    }, { message: 'open executions back to 0' });
    const m = await scrape();

    // Runs.
    expect(m.get('actorflow_executions_started_total')).toBe(N + 1);
    expect(m.get('actorflow_executions_closed_total', { status: 'COMPLETED' })).toBe(N);
    expect(m.get('actorflow_executions_closed_total', { status: 'FAILED' })).toBe(1);
    for (const status of ['CANCELED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT']) expect(m.get('actorflow_executions_closed_total', { status })).toBe(0);
    for (const kind of ['workflow', 'decision', 'activity', 'timer']) expect(m.get('actorflow_actors', { kind })).toBe(0);
    // Tasks: each order run has 5 decision tasks and 4 activities; the timeout run 2 and 1.
    expect(m.get('actorflow_tasks_scheduled_total', { kind: 'decision' })).toBe(5 * N + 2);
    expect(m.get('actorflow_tasks_started_total', { kind: 'decision' })).toBe(5 * N + 2);
    expect(m.get('actorflow_tasks_completed_total', { kind: 'decision' })).toBe(5 * N + 2);
    expect(m.get('actorflow_tasks_scheduled_total', { kind: 'activity' })).toBe(4 * N + 1);
    expect(m.get('actorflow_tasks_started_total', { kind: 'activity' })).toBe(4 * N + 1);
    expect(m.get('actorflow_tasks_completed_total', { kind: 'activity' })).toBe(4 * N);
    expect(m.get('actorflow_tasks_failed_total', { kind: 'activity' })).toBe(0);
    expect(m.get('actorflow_tasks_timed_out_total', { kind: 'activity', timeout_type: 'START_TO_CLOSE' })).toBe(1);
    const timeouts = m.samples.filter((s) => s.name === 'actorflow_tasks_timed_out_total');
    expect(timeouts.reduce((n, s) => n + s.value, 0)).toBe(1);
    expect(m.get('actorflow_history_events_total')).toBe(29 * N + 11);
    expect(histories.reduce((n, h) => n + h.length, 0)).toBe(29 * N + 11);
    // One node owns every partition: each request for an execution is served on it.
    expect(m.get('actorflow_owner_calls_total', { where: 'local' })).toBe(node.router.ownerCalls().local);
    expect(m.get('actorflow_owner_calls_total', { where: 'local' })).toBeGreaterThanOrEqual(19 * N);
    expect(m.get('actorflow_owner_calls_total', { where: 'remote' })).toBe(0);

    // Dispatch latency: one observation per Started event, summing Started − Scheduled timestamps.
    for (const [kind, type, count] of [['decision', 'DecisionTaskStarted', 5 * N + 2], ['activity', 'ActivityTaskStarted', 4 * N + 1]] as const) {
      expect(m.get('actorflow_task_dispatch_latency_seconds_count', { kind })).toBe(count);
      let sumMs = 0;
      const ms = (e: WireEvent) => Math.round(e.eventTimestamp * 1000);
      for (const h of histories) {
        for (const e of h.filter((x) => x.eventType === type)) sumMs += ms(e) - ms(h[attributesOf(e).scheduledEventId - 1]!);
      }
      expect(m.get('actorflow_task_dispatch_latency_seconds_sum', { kind })).toBeCloseTo(sumMs / 1000, 6);
      expect(m.get('actorflow_task_dispatch_latency_seconds_bucket', { kind, le: '+Inf' })).toBe(count);
      const buckets = m.samples.filter((s) => s.name === 'actorflow_task_dispatch_latency_seconds_bucket' && s.labels.kind === kind).map((s) => s.value);
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    }
    // One JetStream append per transition: 19 per order run (the start, 5 decision tasks started and
    // completed, 4 activities started and completed), 7 for the timeout run.
    expect(m.get('actorflow_history_append_seconds_count')).toBe(19 * N + 7);
    expect(m.get('actorflow_history_append_seconds_bucket', { le: '+Inf' })).toBe(19 * N + 7);
    expect(m.get('actorflow_history_append_seconds_sum')).toBeGreaterThan(0);
    expect(m.get('actorflow_history_append_failures_total', { reason: 'conflict' })).toBe(0);
    expect(m.get('actorflow_history_append_failures_total', { reason: 'error' })).toBe(0);
    expect(m.get('actorflow_polls_waiting', { kind: 'decision' })).toBe(0);
    expect(m.get('actorflow_polls_waiting', { kind: 'activity' })).toBe(0);
  });

  it('counts Step Functions executions, state transitions and activity tasks, and their open executions awake and asleep', async () => {
    const before = await scrape();
    const role = 'arn:aws:iam::000000000000:role/metrics';
    const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: 'metrics-act' });
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
      name: 'metrics-sm', roleArn: role,
      definition: JSON.stringify({ StartAt: 'Prep', States: { Prep: { Type: 'Pass', Next: 'Work' }, Work: { Type: 'Task', Resource: activityArn, End: true } } }),
    });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{}' });
    await until(async () => (await scrape()).get('actorflow_open_executions', { kind: 'sfn', state: 'asleep' }) === 1, { message: 'the execution to sleep' });
    expect((await scrape()).get('actorflow_open_executions', { kind: 'sfn', state: 'awake' })).toBe(0);
    const task = await client.call<{ taskToken: string }>('GetActivityTask', { activityArn });
    await client.call('SendTaskSuccess', { taskToken: task.taskToken, output: '{}' });
    await until(async () => (await client.call<{ status: string }>('DescribeExecution', { executionArn })).status === 'SUCCEEDED');
    const m = await scrape();
    const diff = (name: string, labels?: Record<string, string>) => m.get(name, labels) - before.get(name, labels);
    expect(diff('actorflow_sfn_executions_started_total')).toBe(1);
    expect(diff('actorflow_sfn_executions_closed_total', { status: 'SUCCEEDED' })).toBe(1);
    expect(diff('actorflow_sfn_state_transitions_total')).toBe(2);
    for (const event of ['scheduled', 'started', 'succeeded']) expect(diff('actorflow_sfn_activity_tasks_total', { event })).toBe(1);
    expect(diff('actorflow_sfn_activity_tasks_total', { event: 'failed' })).toBe(0);
    // ExecutionStarted, PassStateEntered/Exited, TaskStateEntered, ActivityScheduled/Started/Succeeded, TaskStateExited, ExecutionSucceeded.
    expect(diff('actorflow_sfn_history_events_total')).toBe(9);
    expect(m.get('actorflow_open_executions', { kind: 'sfn', state: 'awake' }) + m.get('actorflow_open_executions', { kind: 'sfn', state: 'asleep' })).toBe(0);
  });

  it('keeps one registry per node, so several nodes in one process do not clash', async () => {
    const a = new NodeMetrics({ defaultMetrics: false });
    const b = new NodeMetrics({ defaultMetrics: false });
    a.committed(() => undefined, [{ type: 'WorkflowExecutionStarted', id: 1, at: 0, attrs: {} }]);
    expect(await a.render()).toContain('actorflow_executions_started_total 1');
    expect(await b.render()).toContain('actorflow_executions_started_total 0');
    // Gauges read as 0 before a node gives them their sources.
    expect(await b.render()).toContain('actorflow_open_executions{kind="swf",state="awake"} 0');
  });
});
