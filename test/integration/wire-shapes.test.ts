import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CreateActivityCommand, CreateStateMachineCommand, DeleteActivityCommand, DeleteStateMachineCommand, GetActivityTaskCommand,
  GetExecutionHistoryCommand,
  SendTaskFailureCommand, SendTaskHeartbeatCommand, SendTaskSuccessCommand, StartExecutionCommand, StopExecutionCommand,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import {
  DescribeDomainCommand, DescribeWorkflowExecutionCommand, DescribeWorkflowTypeCommand, GetWorkflowExecutionHistoryCommand,
  ListClosedWorkflowExecutionsCommand, StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../machines/swf/history-event.js';
import { OPERATIONS } from '../../src/swf/operations.js';
import { SFN_OPERATIONS } from '../../src/sfn/operations.js';
import type { SfnEventType } from '../../src/sfn/compile/contract.js';
import { uniqueDomain } from '../helpers/engine.js';
import { PYTHON, requireClient, run } from '../helpers/external-clients.js';
import { freshName, fullHistory, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';
import { swfClient } from '../helpers/swf-http.js';
import { deciderLoop, ORDER_TYPE, registerOrder, workerLoop } from '../helpers/swf-sdk-order.js';
import { until } from '../helpers/until.js';
import { recordWireAnswers, type WireAnswer } from '../helpers/wire-recorder.js';
import { checkWireShape, eventTypesOf, formatProblems, type ShapeProblem } from '../helpers/wire-shapes.js';

/*
 * Every answer of both APIs against the AWS service model, through the real AWS SDK's deserializer
 * (test/helpers/wire-shapes.ts): no member the SDK drops, none of the wrong type, no empty strings.
 * Two sources: test/fixtures/wire-corpus.jsonl, answers recorded from the integration suites
 * (scripts/wire-corpus.ts says how to record it again), and the Step Functions executions and the
 * SWF order workflow below, recorded live. Together they must cover every operation and every event type the engine writes.
 */

const CORPUS = fileURLToPath(new URL('../fixtures/wire-corpus.jsonl', import.meta.url));
const SFN_HISTORY_PY = fileURLToPath(new URL('../clients/sfn_history.py', import.meta.url));

/** SWF event types no code path writes (no Lambda service; RecordMarker never fails). */
const NEVER_WRITTEN = new Set(['RecordMarkerFailed', 'LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionCompleted',
  'LambdaFunctionFailed', 'LambdaFunctionTimedOut', 'StartLambdaFunctionFailed']);

/**
 * Step Functions types the contract declares but no code path records yet: a stopped execution
 * records ExecutionAborted only (AWS also closes the open states; issue 13, point 2).
 */
const SFN_NOT_WRITTEN = new Set<string>(['TaskStateAborted', 'WaitStateAborted', 'ParallelStateAborted', 'MapStateAborted', 'MapIterationAborted',
  // Written by a failed JSONata expression; the JSONata tables (sfn-jsonata-*.test.ts) check its shape.
  'EvaluationFailed',
  // Written by service integration Tasks; sfn-callback*.test.ts reads them back through the AWS SDK.
  'TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded', 'TaskFailed', 'TaskTimedOut']);

const SFN_EVENT_TYPES = [
  'ExecutionStarted', 'ExecutionSucceeded', 'ExecutionFailed', 'ExecutionTimedOut', 'ExecutionAborted',
  'TaskStateEntered', 'TaskStateExited', 'TaskStateAborted',
  'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'ActivityFailed', 'ActivityTimedOut', 'ActivityScheduleFailed',
  'TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded', 'TaskFailed', 'TaskTimedOut',
  'PassStateEntered', 'PassStateExited', 'ChoiceStateEntered', 'ChoiceStateExited', 'WaitStateEntered', 'WaitStateExited', 'WaitStateAborted',
  'SucceedStateEntered', 'SucceedStateExited', 'FailStateEntered',
  'ParallelStateEntered', 'ParallelStateStarted', 'ParallelStateSucceeded', 'ParallelStateFailed', 'ParallelStateExited', 'ParallelStateAborted',
  'MapStateEntered', 'MapStateStarted', 'MapStateSucceeded', 'MapStateFailed', 'MapStateExited', 'MapStateAborted',
  'MapIterationStarted', 'MapIterationSucceeded', 'MapIterationFailed', 'MapIterationAborted', 'EvaluationFailed',
] as const satisfies readonly SfnEventType[];
// A new SfnEventType that is missing above fails the typecheck here.
const everySfnType: Exclude<SfnEventType, (typeof SFN_EVENT_TYPES)[number]> extends never ? true : never = true;

const live: WireAnswer[] = recordWireAnswers();
let h: SfnHttpEngine;
const runs: Record<'happy' | 'failing' | 'aborted' | 'timedOut', string> = { happy: '', failing: '', aborted: '', timedOut: '' };

async function machine(definition: object): Promise<string> {
  const { stateMachineArn } = await h.sfn.send(new CreateStateMachineCommand({ name: freshName('shapes'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) }));
  return stateMachineArn!;
}

async function start(stateMachineArn: string, input: string): Promise<string> {
  return (await h.sfn.send(new StartExecutionCommand({ stateMachineArn, input }))).executionArn!;
}

/** Every state type once, a Map and a Parallel, an activity that heartbeats and succeeds. */
async function happyRun(activityArn: string): Promise<string> {
  const arn = await start(await machine({
    StartAt: 'Prep',
    States: {
      Prep: { Type: 'Pass', Result: { items: [1, 2], go: true }, Next: 'Pick' },
      Pick: { Type: 'Choice', Choices: [{ Variable: '$.go', BooleanEquals: true, Next: 'Each' }], Default: 'Stop' },
      Each: { Type: 'Map', ItemsPath: '$.items', ResultPath: '$.mapped', Iterator: { StartAt: 'Same', States: { Same: { Type: 'Pass', End: true } } }, Next: 'Both' },
      Both: {
        Type: 'Parallel', ResultPath: '$.branches', Next: 'Done',
        Branches: [
          { StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 0, End: true } } },
          { StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } },
        ],
      },
      Done: { Type: 'Succeed' },
      Stop: { Type: 'Fail', Error: 'Nope' },
    },
  }), '{"start":[1,2]}');
  const task = await h.sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'shapes-worker' }));
  await h.sfn.send(new SendTaskHeartbeatCommand({ taskToken: task.taskToken! }));
  await h.sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken!, output: '{"worked":true}' }));
  await waitClosed(h.sfn, arn);
  return arn;
}

/** A Map iteration that reaches a Fail state; then a Task the worker fails, caught. */
async function failingRun(activityArn: string): Promise<string> {
  const arn = await start(await machine({
    StartAt: 'Try',
    States: {
      Try: { Type: 'Task', Resource: activityArn, Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Each' }], End: true },
      Each: { Type: 'Map', ItemsPath: '$.items', Iterator: { StartAt: 'Boom', States: { Boom: { Type: 'Fail', Error: 'Boom', Cause: 'on purpose' } } }, End: true },
    },
  }), '{"items": [1]}');
  const task = await h.sfn.send(new GetActivityTaskCommand({ activityArn }));
  await h.sfn.send(new SendTaskFailureCommand({ taskToken: task.taskToken!, error: 'Declined', cause: 'no' }));
  await waitClosed(h.sfn, arn);
  return arn;
}

/** Stopped while a Parallel waits in one branch and a Map iteration's Task in the other (ExecutionAborted). */
async function abortedRun(activityArn: string): Promise<string> {
  const arn = await start(await machine({
    StartAt: 'Both',
    States: {
      Both: {
        Type: 'Parallel', End: true,
        Branches: [
          { StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 600, End: true } } },
          { StartAt: 'Each', States: { Each: { Type: 'Map', Iterator: { StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } }, End: true } } },
        ],
      },
    },
  }), '[1]');
  await until(async () => (await fullHistory(h.sfn, arn)).some((e) => e.type === 'ActivityScheduled'), { timeoutMs: 10_000, message: 'the activity to be scheduled' });
  await h.sfn.send(new StopExecutionCommand({ executionArn: arn, error: 'Operator', cause: 'enough' }));
  await waitClosed(h.sfn, arn);
  return arn;
}

/** The SWF order workflow through @aws-sdk/client-swf, then the reads a console or a user makes of it. */
async function swfOrderRun(): Promise<void> {
  const swf = swfClient(h.engine.node.http!.port);
  const domain = uniqueDomain('shapes');
  const stop = new AbortController();
  try {
    await registerOrder(swf, domain);
    const loops = Promise.all([deciderLoop(swf, domain, stop.signal), workerLoop(swf, domain, stop.signal)]);
    const { runId } = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'order', workflowType: ORDER_TYPE, input: '{"orderId":1}' }));
    const execution = { workflowId: 'order', runId: runId! };
    await until(async () => (await swf.send(new DescribeWorkflowExecutionCommand({ domain, execution }))).executionInfo?.executionStatus === 'CLOSED', { timeoutMs: 20_000 });
    await swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize: 10 }));
    await swf.send(new ListClosedWorkflowExecutionsCommand({ domain, startTimeFilter: { oldestDate: new Date(0) } }));
    await swf.send(new DescribeDomainCommand({ name: domain }));
    await swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType: ORDER_TYPE }));
    stop.abort();
    await loops;
  } finally {
    stop.abort();
    swf.destroy();
  }
}

async function timedOutRun(): Promise<string> {
  const arn = await start(await machine({ TimeoutSeconds: 1, StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 60, End: true } } }), '{}');
  await waitClosed(h.sfn, arn);
  return arn;
}

beforeAll(async () => {
  h = await startSfnHttpEngine();
  // One activity per run, so each run's worker gets its own task.
  const activity = async (label: string) => (await h.sfn.send(new CreateActivityCommand({ name: freshName(label) }))).activityArn!;
  const [working, failing, idle] = await Promise.all([activity('shapes-work'), activity('shapes-fail'), activity('shapes-idle')]);
  [runs.happy, runs.failing, runs.aborted, runs.timedOut] = await Promise.all([happyRun(working), failingRun(failing), abortedRun(idle), timedOutRun(), swfOrderRun()]);
  for (const arn of Object.values(runs)) await fullHistory(h.sfn, arn);
  await h.sfn.send(new GetExecutionHistoryCommand({ executionArn: runs.happy, includeExecutionData: false, reverseOrder: true, maxResults: 5 }));
  const gone = await machine({ StartAt: 'P', States: { P: { Type: 'Pass', End: true } } });
  await h.sfn.send(new DeleteStateMachineCommand({ stateMachineArn: gone }));
  await h.sfn.send(new DeleteActivityCommand({ activityArn: await activity('shapes-gone') }));
}, 90_000);
afterAll(async () => { await h?.stop(); });

async function problemsOf(answers: readonly WireAnswer[]): Promise<string> {
  const all: ShapeProblem[] = [];
  for (const a of answers) all.push(...await checkWireShape(a.api, a.action, a.body));
  return formatProblems(all);
}

function corpus(): WireAnswer[] {
  const files = [CORPUS, ...(process.env.AF_WIRE_CORPUS ? [process.env.AF_WIRE_CORPUS] : [])];
  return files.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as WireAnswer));
}

const details = (e: HistoryEvent) => (e.type!.endsWith('StateEntered') ? e.stateEnteredEventDetails : e.type!.endsWith('StateExited') ? e.stateExitedEventDetails : undefined);

describe('wire shapes against the AWS service models', () => {
  it('the checker reports a member the SDK drops, a wrong type, an empty string and a missing required member', async () => {
    const body = JSON.stringify({ events: [{
      timestamp: 1.5, type: 'PassStateEntered', id: '2', previousEventId: 1,
      passStateEnteredEventDetails: { name: 'P' }, stateEnteredEventDetails: { name: '', inputDetails: { truncated: 'no' } },
    }] });
    expect(formatProblems(await checkWireShape('sfn', 'GetExecutionHistory', body)).split('\n')).toEqual([
      'type GetExecutionHistory.events[0].id: model has a number, raw has string "2"',
      'dropped GetExecutionHistory.events[0].passStateEnteredEventDetails: HistoryEvent has no member passStateEnteredEventDetails',
      'empty GetExecutionHistory.events[0].stateEnteredEventDetails.name: empty string member (AWS omits a member it has no value for)',
      'type GetExecutionHistory.events[0].stateEnteredEventDetails.inputDetails.truncated: model has a boolean, raw has string "no"',
    ]);
    expect(await checkWireShape('swf', 'DescribeDomain', JSON.stringify({ domainInfo: { name: 'd', status: 'REGISTERED' }, configuration: { workflowExecutionRetentionPeriodInDays: '1' } }))).toEqual([]);
    expect(formatProblems(await checkWireShape('swf', 'DescribeDomain', JSON.stringify({ domainInfo: { name: 'd', status: 'REGISTERED' } }))))
      .toBe('missing DescribeDomain.configuration: DomainDetail requires configuration');
    expect(await checkWireShape('swf', 'PollForActivityTask', '{"startedEventId":0}')).toEqual([]);
  });

  it('every live answer (Step Functions runs, the SWF order workflow) has exactly the model\'s members', async () => {
    expect(live.length).toBeGreaterThan(20);
    expect(new Set(live.filter((a) => a.action === 'GetWorkflowExecutionHistory' || a.action === 'GetExecutionHistory').map((a) => a.api))).toEqual(new Set(['swf', 'sfn']));
    expect(await problemsOf(live)).toBe('');
  });

  it('every answer of the recorded corpus has exactly the model\'s members', async () => {
    expect(await problemsOf(corpus())).toBe('');
  }, 120_000);

  it('corpus and live answers cover every operation of both APIs and every event type the engine writes', () => {
    expect(everySfnType).toBe(true);
    const answers = [...corpus(), ...live];
    const actions = new Set(answers.map((a) => `${a.api}:${a.action}`));
    const types = new Set(answers.flatMap((a) => eventTypesOf(JSON.parse(a.body))));
    const ops = [...Object.keys(OPERATIONS).map((o) => `swf:${o}`), ...Object.keys(SFN_OPERATIONS).map((o) => `sfn:${o}`)];
    expect(ops.filter((o) => !actions.has(o))).toEqual([]);
    expect(EVENT_TYPES.filter((t) => !NEVER_WRITTEN.has(t) && !types.has(t))).toEqual([]);
    expect(SFN_EVENT_TYPES.filter((t) => !SFN_NOT_WRITTEN.has(t) && !types.has(t))).toEqual([]);
    // When one of them starts being written, it leaves the list (and is checked like the others).
    expect([...SFN_NOT_WRITTEN, ...NEVER_WRITTEN].filter((t) => types.has(t))).toEqual([]);
  });

  it('through @aws-sdk/client-sfn every …StateEntered / …StateExited shows its state name and input / output', async () => {
    for (const arn of Object.values(runs)) {
      const states = (await fullHistory(h.sfn, arn)).filter((e) => /State(Entered|Exited)$/.test(e.type!));
      expect(states.length).toBeGreaterThan(0);
      for (const e of states) {
        expect(details(e)?.name, `${e.id} ${e.type}`).toMatch(/^\w+$/);
        const data = e.type!.endsWith('Entered') ? e.stateEnteredEventDetails : e.stateExitedEventDetails;
        expect(typeof (e.type!.endsWith('Entered') ? e.stateEnteredEventDetails?.input : e.stateExitedEventDetails?.output), `${e.id} ${e.type}`).toBe('string');
        expect(data).toHaveProperty(e.type!.endsWith('Entered') ? 'inputDetails' : 'outputDetails', { truncated: false });
      }
    }
    const happy = await fullHistory(h.sfn, runs.happy);
    const prep = happy.filter((e) => e.type === 'PassStateEntered' || e.type === 'PassStateExited').slice(0, 2);
    expect(prep.map((e) => details(e))).toEqual([
      { name: 'Prep', input: '{"start":[1,2]}', inputDetails: { truncated: false } },
      { name: 'Prep', output: '{"items":[1,2],"go":true}', outputDetails: { truncated: false } },
    ]);
  });

  it('through boto3 every …StateEntered / …StateExited shows its state name and input / output', async () => {
    await requireClient('boto3');
    const r = await run(PYTHON, [SFN_HISTORY_PY, `http://127.0.0.1:${h.engine.node.http!.port}`, runs.happy], 30_000);
    expect(r.code, `sfn_history.py failed:\n${r.stderr}`).toBe(0);
    const events = JSON.parse(r.stdout) as Record<string, any>[];
    const states = events.filter((e) => /State(Entered|Exited)$/.test(e.type));
    expect(states.map((e) => e.type)).toEqual(expect.arrayContaining(['PassStateEntered', 'ChoiceStateExited', 'MapStateEntered', 'ParallelStateExited', 'WaitStateEntered', 'TaskStateExited', 'SucceedStateExited']));
    for (const e of states) {
      const d = e.type.endsWith('Entered') ? e.stateEnteredEventDetails : e.stateExitedEventDetails;
      expect(d?.name, `${e.id} ${e.type}`).toMatch(/^\w+$/);
      expect(typeof (e.type.endsWith('Entered') ? d.input : d.output), `${e.id} ${e.type}`).toBe('string');
    }
    const sdk = await fullHistory(h.sfn, runs.happy);
    expect(states.map((e) => [e.id, e.type, (e.stateEnteredEventDetails ?? e.stateExitedEventDetails).name]))
      .toEqual(sdk.filter((e) => /State(Entered|Exited)$/.test(e.type!)).map((e) => [e.id, e.type, details(e)!.name]));
  });
});
