import {
  DescribeExecutionCommand, GetActivityTaskCommand, ListExecutionsCommand, RedriveExecutionCommand, SendTaskFailureCommand,
  SendTaskSuccessCommand, StartExecutionCommand, type HistoryEvent, type SFNClient,
} from '@aws-sdk/client-sfn';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS, requireClient, run } from '../helpers/external-clients.js';
import { fullHistory, machineWithActivity, rejection, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

const MODELS = fileURLToPath(new URL('../fixtures/aws-models-redrive', import.meta.url));
let h: SfnHttpEngine;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  sfn = h.sfn;
});
afterAll(async () => { await h?.stop(); });

/** One activity task (a task must be queued: the HTTP poll has no short timeout). */
async function take(activityArn: string): Promise<{ token: string; input: any }> {
  const t = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'w' }));
  expect(t.taskToken).toBeTruthy();
  return { token: t.taskToken!, input: JSON.parse(t.input!) };
}
const succeed = (token: string, output: unknown) => sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output) }));
const fail = (token: string) => sfn.send(new SendTaskFailureCommand({ taskToken: token, error: 'Boom', cause: 'first attempt' }));
const types = (events: HistoryEvent[]) => events.map((e) => e.type);
const count = (events: HistoryEvent[], type: string) => events.filter((e) => e.type === type).length;

async function start(stateMachineArn: string, input: unknown = {}): Promise<string> {
  return (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }))).executionArn!;
}

describe('RedriveExecution (AWS SDK)', () => {
  it('runs a failed Task again, not the states before it; the history continues with ExecutionRedriven', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      StartAt: 'Prepare',
      States: {
        Prepare: { Type: 'Pass', Result: { step: 'prepared' }, ResultPath: '$.prep', Next: 'Work' },
        Work: { Type: 'Task', Resource: a, ResultPath: '$.work', End: true },
      },
    }));
    const executionArn = await start(stateMachineArn, { order: 7 });
    await fail((await take(activityArn)).token);
    const failed = await waitClosed(sfn, executionArn);
    expect({ status: failed.status, error: failed.error, redriveStatus: failed.redriveStatus, redriveCount: failed.redriveCount })
      .toEqual({ status: 'FAILED', error: 'Boom', redriveStatus: 'REDRIVABLE', redriveCount: 0 });
    const before = await fullHistory(sfn, executionArn);

    const { redriveDate } = await sfn.send(new RedriveExecutionCommand({ executionArn, clientToken: 'tok-1' }));
    expect(redriveDate).toBeInstanceOf(Date);
    // The same clientToken answers the same redriveDate, and starts nothing more.
    expect((await sfn.send(new RedriveExecutionCommand({ executionArn, clientToken: 'tok-1' }))).redriveDate).toEqual(redriveDate);
    const running = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect({ status: running.status, stopDate: running.stopDate, error: running.error, redriveCount: running.redriveCount, redriveStatus: running.redriveStatus, reason: running.redriveStatusReason })
      .toEqual({ status: 'RUNNING', stopDate: undefined, error: undefined, redriveCount: 1, redriveStatus: 'NOT_REDRIVABLE', reason: 'Execution is RUNNING and cannot be redriven' });

    // The task runs again with the input it had: the Pass state's work is kept, not redone.
    const again = await take(activityArn);
    expect(again.input).toEqual({ order: 7, prep: { step: 'prepared' } });
    await succeed(again.token, { done: true });
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: JSON.parse(d.output!), redriveCount: d.redriveCount, redriveDate: d.redriveDate, error: d.error })
      .toEqual({ status: 'SUCCEEDED', output: { order: 7, prep: { step: 'prepared' }, work: { done: true } }, redriveCount: 1, redriveDate, error: undefined });
    expect(d.redriveStatusReason).toBe('Execution is SUCCEEDED and cannot be redriven');

    const events = await fullHistory(sfn, executionArn);
    // The same stream: the events before are there as they were, the ids go on.
    expect(events.slice(0, before.length)).toEqual(before);
    expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
    expect(types(events.slice(before.length))).toEqual([
      'ExecutionRedriven', 'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited', 'ExecutionSucceeded',
    ]);
    const redriven = events[before.length]!;
    expect(redriven.executionRedrivenEventDetails).toEqual({ redriveCount: 1 });
    expect(redriven.previousEventId).toBe(before.length);
    expect(events[before.length + 1]!.previousEventId).toBe(redriven.id);
    expect(count(events, 'PassStateEntered')).toBe(1);
  }, 60_000);

  it('reruns only the Map iterations that did not succeed', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      StartAt: 'Each',
      States: {
        Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { StartAt: 'Do', States: { Do: { Type: 'Task', Resource: a, End: true } } }, End: true },
      },
    }));
    const items = [1, 2, 3, 4, 5].map((n) => ({ n, bad: n === 2 || n === 4 }));
    const executionArn = await start(stateMachineArn, { items });
    const first = await Promise.all(items.map(() => take(activityArn)));
    // The good ones succeed; then one bad one fails the Map, which aborts the other still running.
    for (const t of first.filter((t) => !t.input.bad)) await succeed(t.token, { got: t.input.n });
    await fail(first.find((t) => t.input.bad)!.token);
    expect((await waitClosed(sfn, executionArn)).status).toBe('FAILED');
    const before = await fullHistory(sfn, executionArn);

    await sfn.send(new RedriveExecutionCommand({ executionArn }));
    const second = [await take(activityArn), await take(activityArn)];
    expect(second.map((t) => t.input.n).sort()).toEqual([2, 4]);
    for (const t of second) await succeed(t.token, { got: t.input.n });
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: JSON.parse(d.output!) }).toEqual({ status: 'SUCCEEDED', output: [1, 2, 3, 4, 5].map((n) => ({ got: n })) });
    const after = (await fullHistory(sfn, executionArn)).slice(before.length);
    expect({ scheduled: count(after, 'ActivityScheduled'), iterations: count(after, 'MapIterationStarted'), succeeded: count(after, 'MapIterationSucceeded') })
      .toEqual({ scheduled: 2, iterations: 2, succeeded: 2 });
    expect(types(after).slice(0, 3)).toEqual(['ExecutionRedriven', 'MapStateEntered', 'MapStateStarted']);
    expect(after.find((e) => e.type === 'MapStateStarted')!.mapStateStartedEventDetails).toEqual({ length: 5 });
  }, 60_000);

  it('reruns only the Parallel branch that failed', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel', End: true,
          Branches: [
            { StartAt: 'Quick', States: { Quick: { Type: 'Pass', Result: 'quick', End: true } } },
            { StartAt: 'Slow', States: { Slow: { Type: 'Task', Resource: a, End: true } } },
          ],
        },
      },
    }));
    const executionArn = await start(stateMachineArn);
    await fail((await take(activityArn)).token);
    expect((await waitClosed(sfn, executionArn)).status).toBe('FAILED');
    const before = await fullHistory(sfn, executionArn);
    await sfn.send(new RedriveExecutionCommand({ executionArn }));
    await succeed((await take(activityArn)).token, 'slow');
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: JSON.parse(d.output!) }).toEqual({ status: 'SUCCEEDED', output: ['quick', 'slow'] });
    const after = (await fullHistory(sfn, executionArn)).slice(before.length);
    expect(types(after)).toEqual([
      'ExecutionRedriven', 'ParallelStateEntered', 'ParallelStateStarted', 'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded',
      'TaskStateExited', 'ParallelStateSucceeded', 'ParallelStateExited', 'ExecutionSucceeded',
    ]);
  }, 60_000);

  it('redrives an aborted execution; refuses SUCCEEDED, RUNNING, unknown and malformed ones with AWS\'s faults', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({ StartAt: 'W', States: { W: { Type: 'Task', Resource: a, End: true } } }));
    const executionArn = await start(stateMachineArn);
    const t = await take(activityArn);
    let err = await rejection(sfn.send(new RedriveExecutionCommand({ executionArn })));
    expect({ name: err.name, message: err.message }).toEqual({ name: 'ExecutionNotRedrivable', message: 'Execution is RUNNING and cannot be redriven' });
    await h.engine.client.call('StopExecution', { executionArn, error: 'Halt' });
    expect((await waitClosed(sfn, executionArn)).status).toBe('ABORTED');
    await sfn.send(new RedriveExecutionCommand({ executionArn }));
    // The task of the attempt before is over: its token does not answer the new attempt's.
    expect((await rejection(succeed(t.token, 1))).name).toBe('TaskTimedOut');
    await succeed((await take(activityArn)).token, 'ok');
    expect((await waitClosed(sfn, executionArn)).status).toBe('SUCCEEDED');

    err = await rejection(sfn.send(new RedriveExecutionCommand({ executionArn })));
    expect({ name: err.name, message: err.message }).toEqual({ name: 'ExecutionNotRedrivable', message: 'Execution is SUCCEEDED and cannot be redriven' });
    err = await rejection(sfn.send(new RedriveExecutionCommand({ executionArn: `${executionArn}-gone` })));
    expect(err.name).toBe('ExecutionDoesNotExist');
    expect((await rejection(sfn.send(new RedriveExecutionCommand({ executionArn: 'not-an-arn' })))).name).toBe('InvalidArn');
    err = await rejection(sfn.send(new RedriveExecutionCommand({ executionArn, clientToken: 'has space' })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toContain("'clientToken'");
  }, 60_000);

  it('lists redriveCount and redriveDate, and filters with redriveFilter', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({ StartAt: 'W', States: { W: { Type: 'Task', Resource: a, End: true } } }));
    const redriven = await start(stateMachineArn);
    await fail((await take(activityArn)).token);
    await waitClosed(sfn, redriven);
    const { redriveDate } = await sfn.send(new RedriveExecutionCommand({ executionArn: redriven }));
    await succeed((await take(activityArn)).token, 1);
    await waitClosed(sfn, redriven);
    const plain = await start(stateMachineArn);
    await fail((await take(activityArn)).token);
    await waitClosed(sfn, plain);

    const list = async (redriveFilter?: 'REDRIVEN' | 'NOT_REDRIVEN') =>
      (await sfn.send(new ListExecutionsCommand({ stateMachineArn, ...(redriveFilter ? { redriveFilter } : {}) }))).executions!;
    const all = await list();
    expect(all.map((x) => [x.executionArn, x.status, x.redriveCount, x.redriveDate])).toEqual([
      [plain, 'FAILED', 0, undefined], [redriven, 'SUCCEEDED', 1, redriveDate],
    ]);
    expect((await list('REDRIVEN')).map((x) => x.executionArn)).toEqual([redriven]);
    expect((await list('NOT_REDRIVEN')).map((x) => x.executionArn)).toEqual([plain]);
    const bad = await rejection(sfn.send(new ListExecutionsCommand({ stateMachineArn, redriveFilter: 'SOMETIMES' as never })));
    expect(bad.name).toBe('ValidationException');
  }, 60_000);

  it('is served to the aws CLI (stepfunctions redrive-execution)', async () => {
    await requireClient('aws');
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({ StartAt: 'W', States: { W: { Type: 'Task', Resource: a, End: true } } }));
    const executionArn = await start(stateMachineArn);
    await fail((await take(activityArn)).token);
    await waitClosed(sfn, executionArn);
    const endpoint = `http://127.0.0.1:${h.engine.node.http!.port}`;
    // Debian's CLI (2.9) predates RedriveExecution: it reads the action's model (AWS's, cut) from AWS_DATA_PATH.
    const r = await run(AWS, ['stepfunctions', 'redrive-execution', '--execution-arn', executionArn, '--endpoint-url', endpoint, '--region', 'us-east-1', '--output', 'json'],
      90_000, { AWS_DATA_PATH: MODELS });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).redriveDate).toBeDefined();
    await succeed((await take(activityArn)).token, 'cli');
    expect((await waitClosed(sfn, executionArn)).status).toBe('SUCCEEDED');
  }, 120_000);
});
