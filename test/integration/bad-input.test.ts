import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireEvent } from '../../src/sdk/client.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

/**
 * Bad inputs across the API, each answered with the AWS fault name; afterwards the node still
 * serves and nothing a rejected call carried was written.
 */

type Obj = Record<string, any>;

interface Ctx {
  domain: string;
  /** A started decision task of `run` (never completed by the bad inputs). */
  token: string;
  run: { workflowId: string; runId: string };
  /** A history page token of `run`. */
  historyToken: string;
}

let e: TestEngine;
let c: Ctx;
const call = <T = Obj>(action: string, input: object = {}): Promise<T> => e.client.call<T>(action, input);

const WT = { name: 'wf', version: '1' };
const BARE = { name: 'bare', version: '1' };
const AT = { name: 'act', version: '1' };
const DECIDERS = 'bad-deciders';
/** Every rejected StartWorkflowExecution uses this id; a good start with it must still work at the end. */
const REJECTED_ID = 'rejected-start';

const x = (n: number) => 'x'.repeat(n);
const retention = { workflowExecutionRetentionPeriodInDays: '1' };

interface Row {
  what: string;
  action: string;
  input: (c: Ctx) => unknown;
  fault: string;
}

const row = (action: string, what: string, fault: string, input: (c: Ctx) => unknown): Row => ({ action, what, fault, input });
const V = 'ValidationException';
const S = 'SerializationException';
const U = 'UnknownResourceFault';

/** A RespondDecisionTaskCompleted row with the run's real, open decision task. */
const decide = (what: string, decisions: unknown, fault = V, extra: Obj = {}): Row =>
  row('RespondDecisionTaskCompleted', what, fault, (k) => ({ taskToken: k.token, decisions, ...extra }));
const start = (what: string, extra: Obj, fault = V): Row =>
  row('StartWorkflowExecution', what, fault, (k) => ({ domain: k.domain, workflowId: REJECTED_ID, workflowType: WT, ...extra }));
const regType = (what: string, extra: Obj, fault = V, action = 'RegisterWorkflowType'): Row =>
  row(action, what, fault, (k) => ({ domain: k.domain, name: 'new-type', version: '9', ...extra }));
const regDomain = (what: string, input: Obj, fault = V): Row => row('RegisterDomain', what, fault, () => input);

const ROWS: Row[] = [
  // Unknown action, body of the wrong JSON type.
  row('NoSuchAction', 'unknown action name', 'UnknownOperationException', () => ({})),
  row('ListDomains', 'body is an array, not an object', S, () => ['REGISTERED']),
  // Over NATS a body is any msgpack value: only a map is a request (as a JSON object is over HTTP).
  row('ListDomains', 'body is a msgpack number', S, () => 5),
  row('DescribeDomain', 'body is a msgpack string', S, () => 'name'),
  row('DescribeDomain', 'body is msgpack binary', S, () => new Uint8Array([1, 2, 3])),

  // RegisterDomain: required members, lengths, identifier rule, retention, JSON types.
  regDomain('missing name', { ...retention }),
  regDomain('missing workflowExecutionRetentionPeriodInDays', { name: 'bad-new-1' }),
  regDomain('empty name', { name: '', ...retention }),
  regDomain('name of 257 characters', { name: x(257), ...retention }),
  regDomain('name with leading whitespace', { name: ' bad-new', ...retention }),
  regDomain('name with trailing whitespace', { name: 'bad-new\t', ...retention }),
  regDomain("name with ':'", { name: 'bad:new', ...retention }),
  regDomain("name with '/'", { name: 'bad/new', ...retention }),
  regDomain("name with '|'", { name: 'bad|new', ...retention }),
  regDomain('name with U+0001', { name: 'bad\u0001new', ...retention }),
  regDomain('name with U+007F', { name: 'bad\u007fnew', ...retention }),
  regDomain('name with U+0085', { name: 'bad\u0085new', ...retention }),
  regDomain("name is the literal 'arn'", { name: 'arn', ...retention }),
  regDomain('description of 1025 characters', { name: 'bad-new-2', description: x(1025), ...retention }),
  regDomain('retention of 91 days', { name: 'bad-new-3', workflowExecutionRetentionPeriodInDays: '91' }),
  regDomain('retention not a number', { name: 'bad-new-4', workflowExecutionRetentionPeriodInDays: 'abc' }),
  regDomain('name is a number', { name: 42, ...retention }, S),
  regDomain('retention is a number', { name: 'bad-new-5', workflowExecutionRetentionPeriodInDays: 7 }, S),
  regDomain('tags is a string', { name: 'bad-new-6', ...retention, tags: 'a=b' }, S),

  // Domain status changes and DescribeDomain.
  row('DescribeDomain', 'missing name', V, () => ({})),
  row('DeprecateDomain', 'unknown domain', U, () => ({ name: 'bad-no-such-domain' })),
  row('UndeprecateDomain', 'empty name', V, () => ({ name: '' })),

  // ListDomains.
  row('ListDomains', 'missing registrationStatus', V, () => ({})),
  row('ListDomains', 'registrationStatus not in the enum', V, () => ({ registrationStatus: 'ACTIVE' })),
  row('ListDomains', 'maximumPageSize 1001', V, () => ({ registrationStatus: 'REGISTERED', maximumPageSize: 1001 })),
  row('ListDomains', 'maximumPageSize -1', V, () => ({ registrationStatus: 'REGISTERED', maximumPageSize: -1 })),
  row('ListDomains', 'maximumPageSize is a string', S, () => ({ registrationStatus: 'REGISTERED', maximumPageSize: '10' })),
  row('ListDomains', 'garbage nextPageToken', V, () => ({ registrationStatus: 'REGISTERED', nextPageToken: 'garbage!' })),
  row('ListDomains', 'nextPageToken of 2049 characters', V, () => ({ registrationStatus: 'REGISTERED', nextPageToken: x(2049) })),
  row('ListDomains', 'reverseOrder is a string', S, () => ({ registrationStatus: 'REGISTERED', reverseOrder: 'yes' })),

  // RegisterWorkflowType / RegisterActivityType.
  row('RegisterWorkflowType', 'missing domain', V, () => ({ name: 'new-type', version: '1' })),
  regType('missing version', { version: undefined }),
  regType('missing name', { name: undefined }),
  regType('name of 257 characters', { name: x(257) }),
  regType('version of 65 characters', { version: x(65) }),
  regType("version with '|'", { version: 'v|1' }),
  regType('description of 1025 characters', { description: x(1025) }),
  regType("defaultExecutionStartToCloseTimeout 'NONE'", { defaultExecutionStartToCloseTimeout: 'NONE' }),
  regType("defaultTaskStartToCloseTimeout 'abc'", { defaultTaskStartToCloseTimeout: 'abc' }),
  regType("defaultTaskStartToCloseTimeout '-1'", { defaultTaskStartToCloseTimeout: '-1' }),
  regType("defaultTaskStartToCloseTimeout '31536001' (over a year)", { defaultTaskStartToCloseTimeout: '31536001' }),
  regType('defaultTaskStartToCloseTimeout of 9 characters', { defaultTaskStartToCloseTimeout: '000000001' }),
  regType('defaultTaskStartToCloseTimeout is a number', { defaultTaskStartToCloseTimeout: 30 }, S),
  regType("defaultChildPolicy 'KILL'", { defaultChildPolicy: 'KILL' }),
  regType("defaultTaskList name with ':'", { defaultTaskList: { name: 'a:b' } }),
  regType('defaultTaskList without name', { defaultTaskList: {} }),
  regType("defaultTaskPriority 'high'", { defaultTaskPriority: 'high' }),
  regType('unknown domain', { domain: 'bad-no-such-domain' }, U),
  regType("name is the literal 'arn'", { name: 'arn' }, V, 'RegisterActivityType'),
  regType("defaultTaskHeartbeatTimeout '1.5'", { defaultTaskHeartbeatTimeout: '1.5' }, V, 'RegisterActivityType'),
  regType('empty defaultTaskScheduleToCloseTimeout', { defaultTaskScheduleToCloseTimeout: '' }, V, 'RegisterActivityType'),
  regType('registered twice', { name: AT.name, version: AT.version }, 'TypeAlreadyExistsFault', 'RegisterActivityType'),

  // Describe / List / status of types.
  row('DescribeWorkflowType', 'missing workflowType', V, (k) => ({ domain: k.domain })),
  row('DescribeWorkflowType', 'workflowType without version', V, (k) => ({ domain: k.domain, workflowType: { name: WT.name } })),
  row('DescribeWorkflowType', 'workflowType is a string', S, (k) => ({ domain: k.domain, workflowType: 'wf:1' })),
  row('DescribeActivityType', 'unknown type', U, (k) => ({ domain: k.domain, activityType: { name: AT.name, version: '2' } })),
  row('ListWorkflowTypes', 'registrationStatus not in the enum', V, (k) => ({ domain: k.domain, registrationStatus: 'BOTH' })),
  row('ListWorkflowTypes', 'maximumPageSize 1001', V, (k) => ({ domain: k.domain, registrationStatus: 'REGISTERED', maximumPageSize: 1001 })),
  row('ListActivityTypes', 'garbage nextPageToken', V, (k) => ({ domain: k.domain, registrationStatus: 'REGISTERED', nextPageToken: 'not-a-page' })),
  row('ListActivityTypes', "name with '/'", V, (k) => ({ domain: k.domain, registrationStatus: 'REGISTERED', name: 'a/b' })),
  row('DeprecateWorkflowType', 'unknown type', U, (k) => ({ domain: k.domain, workflowType: { name: 'nope', version: '1' } })),
  row('UndeprecateWorkflowType', 'type is registered', 'TypeAlreadyExistsFault', (k) => ({ domain: k.domain, workflowType: WT })),
  row('DeleteActivityType', 'type is not deprecated', 'TypeNotDeprecatedFault', (k) => ({ domain: k.domain, activityType: AT })),
  row('DeleteActivityType', 'missing activityType', V, (k) => ({ domain: k.domain })),

  // StartWorkflowExecution.
  start('missing workflowId', { workflowId: undefined }),
  start('missing workflowType', { workflowType: undefined }),
  start('workflowId of 257 characters', { workflowId: x(257) }),
  start('workflowId with leading whitespace', { workflowId: ' rejected' }),
  start("workflowId is the literal 'arn'", { workflowId: 'arn' }),
  start('input of 32,769 characters', { input: x(32_769) }),
  start("executionStartToCloseTimeout 'NONE'", { executionStartToCloseTimeout: 'NONE' }),
  start("executionStartToCloseTimeout '31536001'", { executionStartToCloseTimeout: '31536001' }),
  start("taskStartToCloseTimeout 'abc'", { taskStartToCloseTimeout: 'abc' }),
  start("taskStartToCloseTimeout '-1'", { taskStartToCloseTimeout: '-1' }),
  start("childPolicy 'KILL'", { childPolicy: 'KILL' }),
  start('tagList with 6 tags', { tagList: ['1', '2', '3', '4', '5', '6'] }),
  start('tag of 257 characters', { tagList: [x(257)] }),
  start('tag is a number', { tagList: [1] }, S),
  start('taskList name with U+0000', { taskList: { name: 'a\u0000b' } }),
  start("taskPriority 'urgent'", { taskPriority: 'urgent' }),
  start('empty lambdaRole', { lambdaRole: '' }),
  start('workflowId is a number', { workflowId: 7 }, S),
  start('input is a number', { input: 123 }, S),
  start('unknown workflow type', { workflowType: { name: 'nope', version: '1' } }, U),
  start('unknown domain', { domain: 'bad-no-such-domain' }, U),
  start('no taskList on the call or the type', { workflowType: BARE }, 'DefaultUndefinedFault'),
  start('no timeouts or childPolicy on the call or the type', { workflowType: BARE, taskList: { name: DECIDERS } }, 'DefaultUndefinedFault'),

  // Visibility.
  row('DescribeWorkflowExecution', 'missing execution', V, (k) => ({ domain: k.domain })),
  row('DescribeWorkflowExecution', 'execution without runId', V, (k) => ({ domain: k.domain, execution: { workflowId: k.run.workflowId } })),
  row('DescribeWorkflowExecution', 'runId of 65 characters', V, (k) => ({ domain: k.domain, execution: { workflowId: k.run.workflowId, runId: x(65) } })),
  row('DescribeWorkflowExecution', 'unknown run', U, (k) => ({ domain: k.domain, execution: { workflowId: k.run.workflowId, runId: 'no-such-run' } })),
  row('GetWorkflowExecutionHistory', 'maximumPageSize -1', V, (k) => ({ domain: k.domain, execution: k.run, maximumPageSize: -1 })),
  row('GetWorkflowExecutionHistory', 'garbage nextPageToken', V, (k) => ({ domain: k.domain, execution: k.run, nextPageToken: 'garbage' })),
  row('GetWorkflowExecutionHistory', "another run's nextPageToken", V, (k) => ({ domain: k.domain, execution: { workflowId: 'other', runId: k.run.runId }, nextPageToken: k.historyToken })),
  row('GetWorkflowExecutionHistory', 'unknown workflowId', U, (k) => ({ domain: k.domain, execution: { workflowId: 'nobody', runId: k.run.runId } })),
  row('CountPendingDecisionTasks', 'missing taskList', V, (k) => ({ domain: k.domain })),
  row('CountPendingActivityTasks', 'unknown domain', U, () => ({ domain: 'bad-no-such-domain', taskList: { name: 't' } })),

  // Polls.
  row('PollForDecisionTask', 'missing taskList', V, (k) => ({ domain: k.domain })),
  row('PollForDecisionTask', "taskList name is the literal 'arn'", V, (k) => ({ domain: k.domain, taskList: { name: 'arn' } })),
  row('PollForDecisionTask', 'identity of 257 characters', V, (k) => ({ domain: k.domain, taskList: { name: DECIDERS }, identity: x(257) })),
  row('PollForDecisionTask', 'garbage nextPageToken', V, (k) => ({ domain: k.domain, taskList: { name: DECIDERS }, nextPageToken: 'not-a-token' })),
  row('PollForDecisionTask', 'maximumPageSize 1001', V, (k) => ({ domain: k.domain, taskList: { name: DECIDERS }, maximumPageSize: 1001 })),
  row('PollForActivityTask', 'missing taskList', V, (k) => ({ domain: k.domain })),
  row('PollForActivityTask', 'taskList is a string', S, (k) => ({ domain: k.domain, taskList: 'workers' })),

  // Task tokens.
  row('RespondDecisionTaskCompleted', "garbage task token 'not-a-token'", V, () => ({ taskToken: 'not-a-token', decisions: [] })),
  row('RespondDecisionTaskCompleted', 'missing taskToken', V, () => ({ decisions: [] })),
  row('RespondDecisionTaskCompleted', 'empty taskToken', V, () => ({ taskToken: '' })),
  row('RespondDecisionTaskCompleted', 'taskToken of 1025 characters', V, () => ({ taskToken: x(1025) })),
  row('RespondActivityTaskCompleted', "garbage task token 'not-a-token'", V, () => ({ taskToken: 'not-a-token' })),
  row('RespondActivityTaskCompleted', 'result of 32,769 characters', V, () => ({ taskToken: 'not-a-token', result: x(32_769) })),
  row('RespondActivityTaskFailed', 'reason of 257 characters', V, () => ({ taskToken: 'not-a-token', reason: x(257) })),
  row('RespondActivityTaskCanceled', 'taskToken is a number', S, () => ({ taskToken: 12345 })),
  row('RecordActivityTaskHeartbeat', "garbage task token 'not-a-token'", V, () => ({ taskToken: 'not-a-token' })),
  row('RecordActivityTaskHeartbeat', 'details of 2049 characters', V, () => ({ taskToken: 'not-a-token', details: x(2049) })),

  // Malformed decision batches (with the run's real decision task; nothing may be applied).
  decide('unknown decisionType', [{ decisionType: 'LaunchMissiles' }]),
  decide('missing decisionType', [{ recordMarkerDecisionAttributes: { markerName: 'm' } }]),
  decide('StartTimer without timerId', [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { startToFireTimeout: '5' } }]),
  decide('StartTimer without startToFireTimeout', [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't1' } }]),
  decide("StartTimer startToFireTimeout 'NONE'", [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: 'NONE' } }]),
  decide("StartTimer timerId with ':'", [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't:1', startToFireTimeout: '5' } }]),
  decide('StartTimer without its attributes', [{ decisionType: 'StartTimer' }]),
  decide('ScheduleActivityTask without activityType', [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityId: 'a1' } }]),
  decide('ScheduleActivityTask activityId with trailing whitespace', [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: AT, activityId: 'a1 ' } }]),
  decide("ScheduleActivityTask heartbeatTimeout 'soon'", [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: AT, activityId: 'a1', heartbeatTimeout: 'soon' } }]),
  decide("ScheduleActivityTask taskPriority 'high'", [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: AT, activityId: 'a1', taskPriority: 'high' } }]),
  decide('RecordMarker without markerName, after a good decision', [
    { decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: '5' } },
    { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { details: 'd' } },
  ]),
  decide('close decision not last', [
    { decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'r' } },
    { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: 'm' } },
  ]),
  decide('two close decisions', [
    { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: 'm' } },
    { decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: 'r' } },
    { decisionType: 'CompleteWorkflowExecution' },
  ]),
  decide('CompleteWorkflowExecution result of 32,769 characters', [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: x(32_769) } }]),
  decide('executionContext of 32,769 characters', [], V, { executionContext: x(32_769) }),
  decide("taskList name with '|'", [], V, { taskList: { name: 'a|b' } }),
  decide('decisions is an object', { decisionType: 'RecordMarker' }, S),
  decide('decision member is a string', ['RecordMarker'], S),
  decide('decisionType is a number', [{ decisionType: 3 }], S),
];

/** Several List* answers, to compare before and after the bad inputs. */
async function registrySnapshot(domain: string): Promise<Obj> {
  const out: Obj = {};
  for (const status of ['REGISTERED', 'DEPRECATED']) {
    out[`domains ${status}`] = await call('ListDomains', { registrationStatus: status });
    out[`workflow types ${status}`] = await call('ListWorkflowTypes', { domain, registrationStatus: status });
    out[`activity types ${status}`] = await call('ListActivityTypes', { domain, registrationStatus: status });
  }
  return out;
}

let registryBefore: Obj;
let historyBefore: WireEvent[];

beforeAll(async () => {
  e = await startTestEngine();
  const domain = uniqueDomain('bad');
  await call('RegisterDomain', { name: domain, ...retention });
  await call('RegisterWorkflowType', {
    domain, ...WT, defaultTaskList: { name: DECIDERS }, defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE',
  });
  await call('RegisterWorkflowType', { domain, ...BARE });
  await call('RegisterActivityType', { domain, ...AT, defaultTaskList: { name: 'workers' } });
  // A deprecated domain, so both statuses have something to compare.
  await call('RegisterDomain', { name: `${domain}-old`, ...retention });
  await call('DeprecateDomain', { name: `${domain}-old` });

  const run = { workflowId: 'victim', runId: (await call('StartWorkflowExecution', { domain, workflowId: 'victim', workflowType: WT, input: 'in' })).runId as string };
  const task = await call('PollForDecisionTask', { domain, taskList: { name: DECIDERS }, identity: 'bad-input-test', afPollTimeoutMs: 5000 });
  expect(task.taskToken).toBeTruthy();
  const page = await call('GetWorkflowExecutionHistory', { domain, execution: run, maximumPageSize: 1 });
  expect(page.nextPageToken).toBeTruthy();
  c = { domain, token: task.taskToken, run, historyToken: page.nextPageToken };
  registryBefore = await registrySnapshot(domain);
  historyBefore = await e.client.history(domain, run);
  expect(historyBefore.map((ev) => ev.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
});
afterAll(async () => { await e?.stop(); });

describe('bad inputs', () => {
  it('has at least 30 distinct bad inputs', () => {
    const labels = ROWS.map((r) => `${r.action}: ${r.what}`);
    expect(new Set(labels).size).toBe(labels.length);
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(ROWS)('$action: $what → $fault', async (r) => {
    await expect(call(r.action, r.input(c) as object)).rejects.toMatchObject({ name: r.fault });
  });

  it('rejects a malformed decision batch with nothing applied: history unchanged, the same task still completes', async () => {
    const bad = [
      { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: 'before-close' } },
      { decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'done' } },
      { decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '5' } },
    ];
    await expect(call('RespondDecisionTaskCompleted', { taskToken: c.token, decisions: bad }))
      .rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('Close must be last decision in list') });
    expect(await e.client.history(c.domain, c.run)).toEqual(historyBefore);
    const d = await call('DescribeWorkflowExecution', { domain: c.domain, execution: c.run });
    expect(d.executionInfo.executionStatus).toBe('OPEN');
    expect(d.openCounts).toMatchObject({ openDecisionTasks: 1, openTimers: 0, openActivityTasks: 0 });
    expect(d.latestExecutionContext).toBeUndefined();
  });

  it('keeps serving, and wrote nothing for the rejected calls', async () => {
    // Registry: the same domains and types as before the bad inputs.
    expect(await registrySnapshot(c.domain)).toEqual(registryBefore);
    for (const name of ['bad-new-1', 'bad-new-2', 'bad-new-3', 'bad-new-4', 'bad-new-5', 'bad-new-6']) {
      await expect(call('DescribeDomain', { name })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    }
    await expect(call('DescribeWorkflowType', { domain: c.domain, workflowType: { name: 'new-type', version: '9' } })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    await expect(call('DescribeActivityType', { domain: c.domain, activityType: { name: 'new-type', version: '9' } })).rejects.toMatchObject({ name: 'UnknownResourceFault' });

    // The run: history unchanged, its decision task still open.
    expect(await e.client.history(c.domain, c.run)).toEqual(historyBefore);
    // No rejected start left a decision task behind or holds the workflowId.
    expect((await call('CountPendingDecisionTasks', { domain: c.domain, taskList: { name: DECIDERS } })).count).toBe(0);
    const again = await call('StartWorkflowExecution', { domain: c.domain, workflowId: REJECTED_ID, workflowType: WT });
    expect(typeof again.runId).toBe('string');
    expect((await e.client.history(c.domain, { workflowId: REJECTED_ID, runId: again.runId })).map((ev) => ev.eventType))
      .toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);

    // The decision task the bad batches used completes normally now.
    await call('RespondDecisionTaskCompleted', {
      taskToken: c.token, executionContext: 'ctx',
      decisions: [
        { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: 'm', details: 'ok' } },
        { decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'done' } },
      ],
    });
    const after = await e.client.history(c.domain, c.run);
    expect(after.slice(0, historyBefore.length)).toEqual(historyBefore);
    expect(after.slice(historyBefore.length).map((ev) => ev.eventType)).toEqual(['DecisionTaskCompleted', 'MarkerRecorded', 'WorkflowExecutionCompleted']);
    const d = await call('DescribeWorkflowExecution', { domain: c.domain, execution: c.run });
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });
    expect(d.latestExecutionContext).toBe('ctx');
    // …and only once.
    await expect(call('RespondDecisionTaskCompleted', { taskToken: c.token, decisions: [] })).rejects.toMatchObject({ name: 'UnknownResourceFault' });

    // Good calls still work.
    const fresh = uniqueDomain('after');
    await call('RegisterDomain', { name: fresh, ...retention });
    expect((await call('DescribeDomain', { name: fresh })).domainInfo.status).toBe('REGISTERED');
  });
});
