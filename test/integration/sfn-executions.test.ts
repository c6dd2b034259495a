import {
  ExecutionAlreadyExists, ExecutionDoesNotExist, GetActivityTaskCommand, GetExecutionHistoryCommand, type GetExecutionHistoryCommandOutput, InvalidExecutionInput,
  InvalidOutput, InvalidToken, ListExecutionsCommand, SendTaskFailureCommand, SendTaskHeartbeatCommand, SendTaskSuccessCommand,
  SFNClient, StartExecutionCommand, TaskDoesNotExist, StateMachineDoesNotExist, StopExecutionCommand, TaskTimedOut, DescribeExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEngine } from '../helpers/engine.js';
import { rawCall } from '../helpers/swf-http.js';
import { compactSfn, freshName, fullHistory, machineWithActivity, oneTask, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine | undefined;
let e: TestEngine;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  ({ engine: e, sfn } = h);
});
afterAll(async () => { await h?.stop(); });

async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected the call to fail');
}

const start = async (stateMachineArn: string, input: object = {}, name?: string) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input), name }))).executionArn!;

/** GetActivityTask once (a task must be queued: the HTTP poll has no short timeout). */
async function take(activityArn: string, workerName = 'w1') {
  const t = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName }));
  expect(t.taskToken).toBeTruthy();
  return { token: t.taskToken!, input: JSON.parse(t.input!) };
}

describe('Step Functions executions over HTTP (AWS SDK)', () => {
  it('runs an activity execution: the history AWS records, and DescribeExecution SUCCEEDED with the output', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const executionArn = await start(stateMachineArn, { order: 7 });
    const task = await take(activityArn);
    expect(task.input).toEqual({ order: 7 });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: JSON.stringify({ shipped: true }) }));
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: JSON.parse(d.output!), input: JSON.parse(d.input!) }).toEqual({ status: 'SUCCEEDED', output: { shipped: true }, input: { order: 7 } });
    expect(d.stopDate).toBeInstanceOf(Date);
    const h = await fullHistory(sfn, executionArn);
    expect(compactSfn(h)).toBe('1 ExecutionStarted(0) / 2 TaskStateEntered(0) / 3 ActivityScheduled(2) / 4 ActivityStarted(3)'
      + ' / 5 ActivitySucceeded(4) / 6 TaskStateExited(5) / 7 ExecutionSucceeded(6)');
    expect(h[0]!.executionStartedEventDetails?.roleArn).toContain(':role/');
    expect(h[2]!.activityScheduledEventDetails?.resource).toBe(activityArn);
    expect(h[3]!.activityStartedEventDetails?.workerName).toBe('w1');
    expect(h[0]!.timestamp).toBeInstanceOf(Date);
  });

  it('SendTaskFailure fails the execution with its error and cause', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const executionArn = await start(stateMachineArn);
    const task = await take(activityArn);
    await sfn.send(new SendTaskFailureCommand({ taskToken: task.token, error: 'CardDeclined', cause: 'insufficient funds' }));
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, error: d.error, cause: d.cause, output: d.output }).toEqual({ status: 'FAILED', error: 'CardDeclined', cause: 'insufficient funds', output: undefined });
    const h = await fullHistory(sfn, executionArn);
    expect(h.map((x) => x.type).slice(-2)).toEqual(['ActivityFailed', 'ExecutionFailed']);
    expect(h.at(-2)!.activityFailedEventDetails).toMatchObject({ error: 'CardDeclined', cause: 'insufficient funds' });
    expect(h.at(-1)!.executionFailedEventDetails).toMatchObject({ error: 'CardDeclined', cause: 'insufficient funds' });
  });

  it('a worker that stops heartbeating times out (States.Timeout, as AWS records a missed heartbeat); a stale token then answers TaskTimedOut', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a, { HeartbeatSeconds: 1, TimeoutSeconds: 30 }));
    const executionArn = await start(stateMachineArn);
    const task = await take(activityArn);
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.Timeout' });
    const h = await fullHistory(sfn, executionArn);
    expect(h.map((x) => x.type).slice(-2)).toEqual(['ActivityTimedOut', 'ExecutionFailed']);
    expect(h.at(-2)!.activityTimedOutEventDetails?.error).toBe('States.Timeout');
    const stale = await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{}' })));
    expect(stale).toBeInstanceOf(TaskTimedOut);
    expect(await rejection(sfn.send(new SendTaskHeartbeatCommand({ taskToken: task.token })))).toBeInstanceOf(TaskTimedOut);
  });

  it('a worker that keeps heartbeating past HeartbeatSeconds is not timed out', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a, { HeartbeatSeconds: 1, TimeoutSeconds: 30 }));
    const executionArn = await start(stateMachineArn);
    const task = await take(activityArn);
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      await sfn.send(new SendTaskHeartbeatCommand({ taskToken: task.token }));
      await new Promise((r) => setTimeout(r, 300));
    }
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '"done"' }));
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: d.output }).toEqual({ status: 'SUCCEEDED', output: '"done"' });
    expect((await fullHistory(sfn, executionArn)).some((x) => x.type === 'ActivityTimedOut')).toBe(false);
  });

  it('TimeoutSeconds on a Task: ActivityTimedOut with States.Timeout', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a, { TimeoutSeconds: 1 }));
    const executionArn = await start(stateMachineArn);
    await take(activityArn);
    const d = await waitClosed(sfn, executionArn);
    // AWS gives a task timeout no cause: neither the event nor the execution has one.
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({ status: 'FAILED', error: 'States.Timeout', cause: undefined });
    const h = await fullHistory(sfn, executionArn);
    expect(h.at(-2)!.activityTimedOutEventDetails).toEqual({ error: 'States.Timeout' });
    expect(h.at(-1)!.executionFailedEventDetails).toEqual({ error: 'States.Timeout' });
  });

  it('Retry then Catch: the retries are scheduled again, then the fallback state runs', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      StartAt: 'Charge',
      States: {
        Charge: {
          Type: 'Task', Resource: a, End: true,
          Retry: [{ ErrorEquals: ['Flaky'], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 1 }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Fallback', ResultPath: '$.error' }],
        },
        Fallback: { Type: 'Pass', Result: 'refunded', ResultPath: '$.outcome', End: true },
      },
    }));
    const executionArn = await start(stateMachineArn, { id: 1 });
    for (let i = 0; i < 3; i++) {
      const task = await take(activityArn);
      await sfn.send(new SendTaskFailureCommand({ taskToken: task.token, error: 'Flaky', cause: `attempt ${i + 1}` }));
    }
    const d = await waitClosed(sfn, executionArn);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toMatchObject({ id: 1, outcome: 'refunded', error: { Error: 'Flaky', Cause: 'attempt 3' } });
    const types = (await fullHistory(sfn, executionArn)).map((x) => x.type);
    expect(types.filter((t) => t === 'ActivityScheduled')).toHaveLength(3);
    expect(types.filter((t) => t === 'ActivityFailed')).toHaveLength(3);
    expect(types.slice(-3)).toEqual(['PassStateEntered', 'PassStateExited', 'ExecutionSucceeded']);
  });

  it('StopExecution aborts a running execution; the token of its open task then answers TaskDoesNotExist', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const executionArn = await start(stateMachineArn);
    const task = await take(activityArn);
    const stop = await sfn.send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'changed my mind' }));
    expect(stop.stopDate).toBeInstanceOf(Date);
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({ status: 'ABORTED', error: 'Operator', cause: 'changed my mind' });
    const h = await fullHistory(sfn, executionArn);
    expect(h.at(-1)!.type).toBe('ExecutionAborted');
    expect(h.at(-1)!.executionAbortedEventDetails).toMatchObject({ error: 'Operator', cause: 'changed my mind' });
    expect(await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{}' })))).toBeInstanceOf(TaskDoesNotExist);
  });

  it('StartExecution is idempotent for the same name and input while running; otherwise ExecutionAlreadyExists', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const name = freshName('x');
    const a = await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: '{"a":1}' }));
    const b = await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: '{"a":1}' }));
    expect(b.executionArn).toBe(a.executionArn);
    expect(b.startDate!.getTime()).toBe(a.startDate!.getTime());
    expect(await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: '{"a":2}' })))).toBeInstanceOf(ExecutionAlreadyExists);
    const task = await take(activityArn);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{}' }));
    await waitClosed(sfn, a.executionArn!);
    expect(await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: '{"a":1}' })))).toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('ListExecutions: newest first, statusFilter, paging; GetExecutionHistory: paging and reverseOrder', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const arns: string[] = [];
    for (let i = 0; i < 5; i++) {
      arns.push(await start(stateMachineArn, { i }, `run-${i}`));
      await new Promise((r) => setTimeout(r, 5));
    }
    for (let i = 0; i < 2; i++) {
      const task = await take(activityArn);
      await sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{}' }));
    }
    await waitClosed(sfn, arns[0]!);
    await waitClosed(sfn, arns[1]!);
    const pages: string[][] = [];
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 2, nextToken }));
      pages.push(page.executions!.map((x) => x.name!));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(pages).toEqual([['run-4', 'run-3'], ['run-2', 'run-1'], ['run-0']]);
    const running = await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' }));
    expect(running.executions!.map((x) => x.name)).toEqual(['run-4', 'run-3', 'run-2']);
    const succeeded = await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'SUCCEEDED' }));
    expect(succeeded.executions!.map((x) => [x.name, x.status, x.stopDate instanceof Date])).toEqual([['run-1', 'SUCCEEDED', true], ['run-0', 'SUCCEEDED', true]]);

    const ids: number[][] = [];
    nextToken = undefined;
    do {
      const hp: GetExecutionHistoryCommandOutput = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arns[0], maxResults: 3, reverseOrder: true, nextToken }));
      ids.push(hp.events!.map((x) => x.id!));
      nextToken = hp.nextToken;
    } while (nextToken);
    expect(ids).toEqual([[7, 6, 5], [4, 3, 2], [1]]);
    const lean = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arns[0], includeExecutionData: false }));
    expect(lean.events![0]!.executionStartedEventDetails).toEqual({ roleArn: expect.stringContaining(':role/') });
    for (const arn of arns.slice(2)) await sfn.send(new StopExecutionCommand({ executionArn: arn }));
  });

  it('an aborted GetActivityTask long poll leaves the task list: the next task goes to a live poller', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const gone = new AbortController();
    const abandoned = rawCall(e.node.http!.port, { target: 'AWSStepFunctions.GetActivityTask', body: JSON.stringify({ activityArn }), signal: gone.signal }).catch(() => 'aborted');
    await new Promise((r) => setTimeout(r, 200));
    gone.abort();
    expect(await abandoned).toBe('aborted');
    await new Promise((r) => setTimeout(r, 100));
    const executionArn = await start(stateMachineArn, { n: 1 });
    const task = await take(activityArn);
    expect(task.input).toEqual({ n: 1 });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{}' }));
    expect((await waitClosed(sfn, executionArn)).status).toBe('SUCCEEDED');
  });

  it('a lost history fence: the live copy is dropped, rebuilt from the last message, and the call succeeds on retry', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const executionArn = await start(stateMachineArn);
    const task = await take(activityArn);
    // Another writer appends behind the live copy's back (the same transition again: a stale owner's retry).
    const [smName, execName] = executionArn.split(':').slice(-2) as [string, string];
    const rec = (await e.node.ctx.sfnExecutions!.get(smName, execName))!;
    const subject = e.node.ctx.subjects.sfnHistory(rec.partition, smName, execName);
    const last = (await e.node.ctx.store.readLast(subject))!;
    const extra = last.extra as { book: { lastEventId: number } };
    // Its bookkeeping says event ids up to 10 are used: the rebuilt copy must continue from there.
    await e.node.ctx.store.append(subject, executionArn, last.events, last.seq, 'intruder', { ...extra, book: { ...extra.book, lastEventId: 10 } });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{"after":"rebuild"}' }));
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: d.output }).toEqual({ status: 'SUCCEEDED', output: '{"after":"rebuild"}' });
    expect((await fullHistory(sfn, executionArn)).map((x) => x.id)).toEqual([1, 2, 3, 4, 4, 11, 12, 13]);
  });

  it('bad input: the exact faults, and nothing changes', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    expect(await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{nope' })))).toBeInstanceOf(InvalidExecutionInput);
    expect(await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn: `${stateMachineArn}-gone` })))).toBeInstanceOf(StateMachineDoesNotExist);
    expect((await sfn.send(new ListExecutionsCommand({ stateMachineArn }))).executions).toEqual([]);
    const missing = stateMachineArn.replace(':stateMachine:', ':execution:') + ':nope';
    expect(await rejection(sfn.send(new DescribeExecutionCommand({ executionArn: missing })))).toBeInstanceOf(ExecutionDoesNotExist);
    expect(await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: 'garbage!', output: '{}' })))).toBeInstanceOf(InvalidToken);
    expect(await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: 'AAAA', output: 'not json' })))).toBeInstanceOf(InvalidOutput);
  });
});
