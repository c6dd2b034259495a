import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/**
 * Step Functions executions sleep when idle (sleepAfterMs: 0, the sweeper runs every 50 ms), like
 * SWF runs: their actors leave memory and only the next deadline stays in the wake-up heap. The
 * checks wait without touching the execution (DescribeExecution reads the record, not the actor).
 */
let e: TestEngine;
beforeAll(async () => { e = await startTestEngine({ sleepAfterMs: 0 }); });
afterAll(async () => { await e?.stop(); });

interface Ev { id: number; type: string; previousEventId: number; timestamp: number; [k: string]: unknown }
const call = <T>(action: string, input: object) => e.client.call<T>(action, input);
const history = async (executionArn: string) => (await call<{ events: Ev[] }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events;
const statusOf = async (executionArn: string) => (await call<{ status: string; output?: string; error?: string }>('DescribeExecution', { executionArn }));
const asleep = (arn: string) => e.node.sfn.host.isAsleep(arn) && !e.node.sfn.host.get(arn);
const untilAsleep = (arn: string) => until(() => asleep(arn), { timeoutMs: 3000, intervalMs: 5, message: `${arn} to sleep` });

async function machine(definition: object): Promise<string> {
  return (await call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('sleepy'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) })).stateMachineArn;
}
const start = async (stateMachineArn: string, input: object = {}) => (await call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: JSON.stringify(input) })).executionArn;

/** Ids 1…n in order, each previousEventId pointing back into the history. */
function expectGapFree(events: Ev[]): void {
  expect(events.map((x) => x.id)).toEqual(events.map((_, i) => i + 1));
  for (const x of events) expect(x.previousEventId).toBeLessThan(x.id);
}

describe('Step Functions executions asleep', () => {
  it('an execution waiting on an activity sleeps, and wakes for GetActivityTask and SendTaskSuccess', async () => {
    const { activityArn } = await call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const sm = await machine({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } });
    const arn = await start(sm, { n: 1 });
    await untilAsleep(arn);
    expect(e.node.sfn.sleepingCount).toBeGreaterThan(0);
    const task = await call<{ taskToken: string; input: string }>('GetActivityTask', { activityArn, workerName: 'w' });
    expect(JSON.parse(task.input)).toEqual({ n: 1 });
    await untilAsleep(arn);
    await call('SendTaskSuccess', { taskToken: task.taskToken, output: '{"done":true}' });
    expect(await statusOf(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"done":true}' });
    const events = await history(arn);
    expectGapFree(events);
    expect(events.map((x) => x.type)).toEqual(['ExecutionStarted', 'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited', 'ExecutionSucceeded']);
    expect(e.node.sfn.host.isAsleep(arn)).toBe(false);
  });

  it('a Wait of 3 s in a sleeping execution fires within 1 s of its deadline', async () => {
    const sm = await machine({ StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 3, Next: 'Done' }, Done: { Type: 'Pass', End: true } } });
    const arn = await start(sm);
    await untilAsleep(arn);
    await until(async () => (await statusOf(arn)).status !== 'RUNNING', { timeoutMs: 8000, intervalMs: 50 });
    expect((await statusOf(arn)).status).toBe('SUCCEEDED');
    const events = await history(arn);
    expectGapFree(events);
    const entered = events.find((x) => x.type === 'WaitStateEntered')!.timestamp;
    const exited = events.find((x) => x.type === 'WaitStateExited')!.timestamp;
    expect(exited - entered).toBeGreaterThanOrEqual(3);
    expect(exited - entered).toBeLessThan(4);
  });

  it('keeps the heartbeat window it slept with: no new window opens when it wakes', async () => {
    const { activityArn } = await call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const sm = await machine({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, HeartbeatSeconds: 2, TimeoutSeconds: 60, End: true } } });
    const arn = await start(sm);
    const task = await call<{ taskToken: string }>('GetActivityTask', { activityArn, workerName: 'w' });
    await untilAsleep(arn);
    await new Promise((r) => setTimeout(r, 1000));
    await call('SendTaskHeartbeat', { taskToken: task.taskToken }); // wakes it: the window runs 2 s from now
    const beatAt = Date.now() / 1000;
    await untilAsleep(arn);
    await until(async () => (await statusOf(arn)).status !== 'RUNNING', { timeoutMs: 10_000, intervalMs: 50 });
    const events = await history(arn);
    expectGapFree(events);
    const timedOut = events.find((x) => x.type === 'ActivityTimedOut')!;
    expect(timedOut.activityTimedOutEventDetails).toMatchObject({ error: 'States.Timeout' });
    // Woken at its heartbeat deadline, it times out then (a fresh window would add another 2 s).
    expect(timedOut.timestamp - beatAt).toBeGreaterThanOrEqual(1.9);
    expect(timedOut.timestamp - beatAt).toBeLessThan(3.5);
    expect((await statusOf(arn)).status).toBe('FAILED');
  });

  it('woken for another task, a started task keeps the heartbeat window its last heartbeat opened', async () => {
    const { activityArn: beating } = await call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const { activityArn: other } = await call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const sm = await machine({
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel', End: true,
          Branches: [
            { StartAt: 'A', States: { A: { Type: 'Task', Resource: beating, HeartbeatSeconds: 3, End: true } } },
            { StartAt: 'B', States: { B: { Type: 'Task', Resource: other, End: true } } },
          ],
        },
      },
    });
    const arn = await start(sm);
    const a = await call<{ taskToken: string }>('GetActivityTask', { activityArn: beating, workerName: 'w' });
    const b = await call<{ taskToken: string }>('GetActivityTask', { activityArn: other, workerName: 'w' });
    await untilAsleep(arn);
    await new Promise((r) => setTimeout(r, 1000));
    await call('SendTaskHeartbeat', { taskToken: a.taskToken }); // A's window: 3 s from now (not stored: heartbeats write no history)
    const beatAt = Date.now() / 1000;
    await untilAsleep(arn);
    await new Promise((r) => setTimeout(r, 1500));
    await call('SendTaskSuccess', { taskToken: b.taskToken, output: '{}' }); // wakes it from its last stored snapshot
    await until(async () => (await statusOf(arn)).status !== 'RUNNING', { timeoutMs: 10_000, intervalMs: 50 });
    const events = await history(arn);
    expectGapFree(events);
    const timedOut = events.find((x) => x.type === 'ActivityTimedOut')!;
    expect(timedOut.activityTimedOutEventDetails).toMatchObject({ error: 'States.Timeout' });
    // 3 s after the heartbeat: the stored snapshot's window (before the heartbeat) would end 1 s
    // earlier, and a window reopened by the wake-up 1.5 s later.
    expect(timedOut.timestamp - beatAt).toBeGreaterThanOrEqual(2.9);
    expect(timedOut.timestamp - beatAt).toBeLessThan(3.8);
  });

  it('a Retry interval in a sleeping execution ends at its deadline: the task is scheduled again', async () => {
    const { activityArn } = await call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const sm = await machine({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, Retry: [{ ErrorEquals: ['Flaky'], IntervalSeconds: 2, MaxAttempts: 1 }], End: true } } });
    const arn = await start(sm);
    const first = await call<{ taskToken: string }>('GetActivityTask', { activityArn, workerName: 'w' });
    await call('SendTaskFailure', { taskToken: first.taskToken, error: 'Flaky', cause: 'once' });
    await untilAsleep(arn);
    const second = await call<{ taskToken: string }>('GetActivityTask', { activityArn, workerName: 'w' });
    await call('SendTaskSuccess', { taskToken: second.taskToken, output: '"ok"' });
    expect(await statusOf(arn)).toMatchObject({ status: 'SUCCEEDED', output: '"ok"' });
    const events = await history(arn);
    expectGapFree(events);
    const failedAt = events.find((x) => x.type === 'ActivityFailed')!.timestamp;
    const again = events.filter((x) => x.type === 'ActivityScheduled')[1]!.timestamp;
    expect(again - failedAt).toBeGreaterThanOrEqual(2);
    expect(again - failedAt).toBeLessThan(3);
  });
});
