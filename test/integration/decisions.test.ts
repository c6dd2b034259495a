import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { compact, startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/*
 * Every decision type driven by hand: poll a decision task, answer it with a batch, and check the
 * exact history (SWF rules of swf-api.md sections 3-4).
 */

let e: TestEngine;
const domain = uniqueDomain('decisions');
const WF = { name: 'HandDriven', version: '1' };
const type = (name: string) => ({ name, version: '1' });
const FULL_DEFAULTS = {
  defaultTaskList: { name: 'acts' }, defaultTaskScheduleToStartTimeout: '300', defaultTaskStartToCloseTimeout: '60',
  defaultTaskScheduleToCloseTimeout: '360', defaultTaskHeartbeatTimeout: 'NONE', defaultTaskPriority: '5',
};
const drop = (k: keyof typeof FULL_DEFAULTS) => Object.fromEntries(Object.entries(FULL_DEFAULTS).filter(([x]) => x !== k));
const ACTIVITY_TYPES: Record<string, object> = {
  Full: FULL_DEFAULTS,
  Old: FULL_DEFAULTS,
  NoTaskList: drop('defaultTaskList'),
  NoScheduleToClose: drop('defaultTaskScheduleToCloseTimeout'),
  NoScheduleToStart: drop('defaultTaskScheduleToStartTimeout'),
  NoStartToClose: drop('defaultTaskStartToCloseTimeout'),
  NoHeartbeat: drop('defaultTaskHeartbeatTimeout'),
};

beforeAll(async () => {
  e = await startTestEngine();
  await e.client.ensureDomain(domain);
  await e.client.call('RegisterWorkflowType', {
    domain, ...WF, defaultTaskList: { name: 'nobody-polls-this' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  });
  for (const [name, defaults] of Object.entries(ACTIVITY_TYPES)) {
    await e.client.call('RegisterActivityType', { domain, ...type(name), ...defaults });
  }
  await e.client.call('DeprecateActivityType', { domain, activityType: type('Old') });
}, 30_000);
afterAll(async () => { await e?.stop(); });

// ---- decisions -------------------------------------------------------------------------------

const D = {
  schedule: (activityId: string, name = 'Full', attrs: object = {}) => ({
    decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: type(name), activityId, ...attrs },
  }),
  cancelActivity: (activityId: string) => ({ decisionType: 'RequestCancelActivityTask', requestCancelActivityTaskDecisionAttributes: { activityId } }),
  complete: (result?: string) => ({ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result } }),
  fail: (reason?: string, details?: string) => ({ decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason, details } }),
  cancel: (details?: string) => ({ decisionType: 'CancelWorkflowExecution', cancelWorkflowExecutionDecisionAttributes: { details } }),
  marker: (markerName: string, details?: string) => ({ decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName, details } }),
  startTimer: (timerId: string, startToFireTimeout = '1') => ({ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId, startToFireTimeout } }),
  cancelTimer: (timerId: string) => ({ decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId } }),
  lambda: (id: string, name: string) => ({ decisionType: 'ScheduleLambdaFunction', scheduleLambdaFunctionDecisionAttributes: { id, name } }),
};

/** Attributes shown in compact history unless a test asks for others. */
const X = ['activityId', 'timerId', 'cause', 'decisionTaskCompletedEventId'];

// ---- one hand-driven execution ---------------------------------------------------------------

interface DecisionTask { taskToken: string; startedEventId: number; previousStartedEventId: number; events: WireEvent[]; nextPageToken?: string }

let seq = 0;

class Run {
  constructor(readonly workflowId: string, readonly runId: string, readonly taskList: string) {}

  get execution() { return { workflowId: this.workflowId, runId: this.runId }; }

  /** Polls this run's own decision task list (one per run, so tests never see each other's tasks). */
  async poll(extra: object = {}): Promise<DecisionTask> {
    const t = await e.client.call<DecisionTask>('PollForDecisionTask', { domain, taskList: { name: this.taskList }, identity: 'decider', afPollTimeoutMs: 2000, ...extra });
    expect(t.taskToken, 'a decision task was expected').toBeTruthy();
    return t;
  }

  respond(taskToken: string, decisions: object[], extra: object = {}) {
    return e.client.call('RespondDecisionTaskCompleted', { taskToken, decisions, ...extra });
  }

  /** Polls a decision task and answers it. */
  async decide(decisions: object[], extra: object = {}): Promise<DecisionTask> {
    const t = await this.poll();
    await this.respond(t.taskToken, decisions, extra);
    return t;
  }

  history(): Promise<WireEvent[]> {
    return e.client.history(domain, this.execution);
  }

  async text(attrs = X): Promise<string> {
    return compact(await this.history(), attrs);
  }

  describe() {
    return e.client.call('DescribeWorkflowExecution', { domain, execution: this.execution });
  }

  /** Waits until the history has `n` events. */
  async waitFor(n: number): Promise<void> {
    await until(async () => (await this.history()).length >= n, { timeoutMs: 5000, message: `${n} events` });
  }
}

async function start(): Promise<Run> {
  const workflowId = `wf-${++seq}`;
  const taskList = `decide-${workflowId}`;
  const { runId } = await e.client.call('StartWorkflowExecution', { domain, workflowId, workflowType: WF, taskList: { name: taskList } });
  return new Run(workflowId, runId, taskList);
}

function pollActivity(taskList: string, afPollTimeoutMs = 2000) {
  return e.client.call('PollForActivityTask', { domain, taskList: { name: taskList }, identity: 'worker', afPollTimeoutMs });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HEAD = '1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 DecisionTaskCompleted';

// ---- tests -----------------------------------------------------------------------------------

describe('ScheduleActivityTask', () => {
  it('schedules the activity with its settings resolved from the activity type defaults', async () => {
    const run = await start();
    await run.decide([
      D.schedule('a1', 'Full', { input: 'in', control: 'ctl' }),
      D.schedule('a2', 'Full', { taskList: { name: 'elsewhere' }, taskPriority: '-3', startToCloseTimeout: '10', heartbeatTimeout: '20' }),
    ]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 ActivityTaskScheduled activityId=a1,decisionTaskCompletedEventId=4 / 6 ActivityTaskScheduled activityId=a2,decisionTaskCompletedEventId=4`);
    expect(attributesOf(events[4]!)).toEqual({
      activityType: type('Full'), activityId: 'a1', input: 'in', control: 'ctl', taskList: { name: 'acts' }, taskPriority: '5',
      scheduleToStartTimeout: '300', scheduleToCloseTimeout: '360', startToCloseTimeout: '60', heartbeatTimeout: 'NONE',
      decisionTaskCompletedEventId: 4,
    });
    expect(attributesOf(events[5]!)).toEqual({
      activityType: type('Full'), activityId: 'a2', taskList: { name: 'elsewhere' }, taskPriority: '-3',
      scheduleToStartTimeout: '300', scheduleToCloseTimeout: '360', startToCloseTimeout: '10', heartbeatTimeout: '20',
      decisionTaskCompletedEventId: 4,
    });
    // Scheduling an activity is not itself a reason to decide again.
    expect((await run.describe()).openCounts).toMatchObject({ openActivityTasks: 2, openDecisionTasks: 0 });
  });

  it.each([
    ['ACTIVITY_TYPE_DOES_NOT_EXIST', 'NoSuchType'],
    ['ACTIVITY_TYPE_DEPRECATED', 'Old'],
    ['DEFAULT_TASK_LIST_UNDEFINED', 'NoTaskList'],
    ['DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED', 'NoScheduleToClose'],
    ['DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED', 'NoScheduleToStart'],
    ['DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED', 'NoStartToClose'],
    ['DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED', 'NoHeartbeat'],
  ])('fails with %s and schedules a new decision task', async (cause, typeName) => {
    const run = await start();
    await run.decide([D.schedule('a1', typeName)]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 ScheduleActivityTaskFailed activityId=a1,cause=${cause},decisionTaskCompletedEventId=4 / 6 DecisionTaskScheduled`);
    expect(attributesOf(events[4]!).activityType).toEqual(type(typeName));
    expect((await run.describe()).openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 1 });
  });

  it('resolves a missing default from the decision itself (no *_UNDEFINED failure)', async () => {
    const run = await start();
    await run.decide([
      D.schedule('a1', 'NoTaskList', { taskList: { name: 'given' } }),
      D.schedule('a2', 'NoHeartbeat', { heartbeatTimeout: 'NONE' }),
    ]);
    expect(await run.text()).toBe(`${HEAD} / 5 ActivityTaskScheduled activityId=a1,decisionTaskCompletedEventId=4 / 6 ActivityTaskScheduled activityId=a2,decisionTaskCompletedEventId=4`);
  });

  it('fails with ACTIVITY_ID_ALREADY_IN_USE for the same id twice in one batch', async () => {
    const run = await start();
    await run.decide([D.schedule('dup'), D.schedule('dup')]);
    expect(await run.text()).toBe(`${HEAD} / 5 ActivityTaskScheduled activityId=dup,decisionTaskCompletedEventId=4 / 6 ScheduleActivityTaskFailed activityId=dup,cause=ACTIVITY_ID_ALREADY_IN_USE,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled`);
  });

  it('fails with ACTIVITY_ID_ALREADY_IN_USE for an id still open from an earlier batch', async () => {
    const run = await start();
    await run.decide([D.schedule('a1'), D.schedule('x', 'NoSuchType')]);
    await run.decide([D.schedule('a1')]);
    expect(await run.text()).toBe(`${HEAD} / 5 ActivityTaskScheduled activityId=a1,decisionTaskCompletedEventId=4 / 6 ScheduleActivityTaskFailed activityId=x,cause=ACTIVITY_TYPE_DOES_NOT_EXIST,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled / 8 DecisionTaskStarted / 9 DecisionTaskCompleted / 10 ScheduleActivityTaskFailed activityId=a1,cause=ACTIVITY_ID_ALREADY_IN_USE,decisionTaskCompletedEventId=9 / 11 DecisionTaskScheduled`);
  });
});

describe('close decisions', () => {
  it('CompleteWorkflowExecution closes the run as COMPLETED', async () => {
    const run = await start();
    const t = await run.decide([D.complete('done!')]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 WorkflowExecutionCompleted decisionTaskCompletedEventId=4`);
    expect(attributesOf(events[4]!)).toEqual({ result: 'done!', decisionTaskCompletedEventId: 4 });
    const d = await run.describe();
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });
    expect(d.openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 0, openTimers: 0 });
    // The task is closed: its token is no longer valid.
    await expect(run.respond(t.taskToken, [])).rejects.toMatchObject({ name: 'UnknownResourceFault' });
  });

  it('FailWorkflowExecution records reason and details and closes the run as FAILED', async () => {
    const run = await start();
    await run.decide([D.fail('broken', 'all the details')]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 WorkflowExecutionFailed decisionTaskCompletedEventId=4`);
    expect(attributesOf(events[4]!)).toEqual({ reason: 'broken', details: 'all the details', decisionTaskCompletedEventId: 4 });
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'FAILED' });
  });

  it('CancelWorkflowExecution closes the run as CANCELED', async () => {
    const run = await start();
    await run.decide([D.marker('before-cancel'), D.cancel('bye')]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 MarkerRecorded decisionTaskCompletedEventId=4 / 6 WorkflowExecutionCanceled decisionTaskCompletedEventId=4`);
    expect(attributesOf(events[5]!)).toEqual({ details: 'bye', decisionTaskCompletedEventId: 4 });
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'CANCELED' });
  });
});

describe('RecordMarker', () => {
  it('records MarkerRecorded and schedules no decision task of its own', async () => {
    const run = await start();
    await run.decide([D.marker('m1', 'd1'), D.marker('m2')]);
    const events = await run.history();
    expect(compact(events, ['markerName', 'details', 'decisionTaskCompletedEventId'])).toBe(`${HEAD} / 5 MarkerRecorded markerName=m1,details=d1,decisionTaskCompletedEventId=4 / 6 MarkerRecorded markerName=m2,decisionTaskCompletedEventId=4`);
    expect((await run.describe()).openCounts).toMatchObject({ openDecisionTasks: 0 });
    expect((await e.client.call('CountPendingDecisionTasks', { domain, taskList: { name: run.taskList } })).count).toBe(0);
  });
});

describe('timers', () => {
  it('StartTimer fires about a second later with TimerFired and a new decision task', async () => {
    const run = await start();
    await run.decide([D.startTimer('1', '1')]);
    expect(await run.text()).toBe(`${HEAD} / 5 TimerStarted timerId=1,decisionTaskCompletedEventId=4`);
    expect((await run.describe()).openCounts).toMatchObject({ openTimers: 1, openDecisionTasks: 0 });
    await run.waitFor(7);
    const events = await run.history();
    expect(compact(events, ['timerId', 'startedEventId', 'decisionTaskCompletedEventId'])).toBe(`1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 DecisionTaskCompleted startedEventId=3 / 5 TimerStarted timerId=1,decisionTaskCompletedEventId=4 / 6 TimerFired timerId=1,startedEventId=5 / 7 DecisionTaskScheduled`);
    expect(attributesOf(events[4]!)).toMatchObject({ startToFireTimeout: '1' });
    const waited = events[5]!.eventTimestamp - events[4]!.eventTimestamp;
    expect(waited).toBeGreaterThanOrEqual(0.95);
    expect(waited).toBeLessThan(2.5);
    expect((await run.describe()).openCounts).toMatchObject({ openTimers: 0, openDecisionTasks: 1 });
  });

  it('StartTimer with a timerId in use fails with TIMER_ID_ALREADY_IN_USE (same batch and a later one)', async () => {
    const run = await start();
    await run.decide([D.startTimer('t', '60'), D.startTimer('t', '60')]);
    await run.decide([D.startTimer('t', '60')]);
    expect(await run.text()).toBe(`${HEAD} / 5 TimerStarted timerId=t,decisionTaskCompletedEventId=4 / 6 StartTimerFailed timerId=t,cause=TIMER_ID_ALREADY_IN_USE,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled / 8 DecisionTaskStarted / 9 DecisionTaskCompleted / 10 StartTimerFailed timerId=t,cause=TIMER_ID_ALREADY_IN_USE,decisionTaskCompletedEventId=9 / 11 DecisionTaskScheduled`);
    expect((await run.describe()).openCounts).toMatchObject({ openTimers: 1 });
  });

  it('CancelTimer cancels a running timer, which then never fires; an unknown id fails with TIMER_ID_UNKNOWN', async () => {
    const run = await start();
    await run.decide([D.startTimer('t', '1'), D.cancelTimer('nope')]);
    await run.decide([D.cancelTimer('t')]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 TimerStarted timerId=t,decisionTaskCompletedEventId=4 / 6 CancelTimerFailed timerId=nope,cause=TIMER_ID_UNKNOWN,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled / 8 DecisionTaskStarted / 9 DecisionTaskCompleted / 10 TimerCanceled timerId=t,decisionTaskCompletedEventId=9`);
    expect(attributesOf(events[9]!)).toEqual({ timerId: 't', startedEventId: 5, decisionTaskCompletedEventId: 9 });
    expect((await run.describe()).openCounts).toMatchObject({ openTimers: 0, openDecisionTasks: 0 });
    // Wait past the timer's deadline: nothing more is written.
    const started = (await run.history())[4]!.eventTimestamp * 1000;
    await sleep(Math.max(0, started + 1600 - Date.now()));
    expect((await run.history()).length).toBe(10);
    expect((await run.describe()).openCounts).toMatchObject({ openTimers: 0, openDecisionTasks: 0 });
  });
});

describe('RequestCancelActivityTask', () => {
  it('cancels a not-yet-started activity at once; an unknown id fails with ACTIVITY_ID_UNKNOWN', async () => {
    const run = await start();
    const acts = `acts-${run.workflowId}`;
    await run.decide([D.schedule('a1', 'Full', { taskList: { name: acts } }), D.cancelActivity('nope')]);
    await run.decide([D.cancelActivity('a1')]);
    expect(await run.text(['activityId', 'cause', 'scheduledEventId', 'startedEventId', 'latestCancelRequestedEventId', 'decisionTaskCompletedEventId']))
      .toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted scheduledEventId=2 / 4 DecisionTaskCompleted scheduledEventId=2,startedEventId=3'
        + ' / 5 ActivityTaskScheduled activityId=a1,decisionTaskCompletedEventId=4'
        + ' / 6 RequestCancelActivityTaskFailed activityId=nope,cause=ACTIVITY_ID_UNKNOWN,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled'
        + ' / 8 DecisionTaskStarted scheduledEventId=7 / 9 DecisionTaskCompleted scheduledEventId=7,startedEventId=8'
        + ' / 10 ActivityTaskCancelRequested activityId=a1,decisionTaskCompletedEventId=9'
        + ' / 11 ActivityTaskCanceled scheduledEventId=5,startedEventId=0,latestCancelRequestedEventId=10 / 12 DecisionTaskScheduled');
    expect((await run.describe()).openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 1 });
    // The canceled task is gone from its task list.
    const r = await pollActivity(acts, 1000);
    expect(r.taskToken).toBeUndefined();
  });

  it('asks a started activity to cancel: the heartbeat says so and the worker confirms', async () => {
    const run = await start();
    const acts = `acts-${run.workflowId}`;
    await run.decide([D.schedule('a1', 'Full', { taskList: { name: acts } }), D.cancelActivity('nope')]);
    const work = await pollActivity(acts);
    expect(work.activityId).toBe('a1');
    expect(await e.client.call('RecordActivityTaskHeartbeat', { taskToken: work.taskToken })).toEqual({ cancelRequested: false });
    await run.decide([D.cancelActivity('a1')]);
    expect(await e.client.call('RecordActivityTaskHeartbeat', { taskToken: work.taskToken, details: 'half way' })).toEqual({ cancelRequested: true });
    expect((await run.describe()).openCounts).toMatchObject({ openActivityTasks: 1, openDecisionTasks: 0 });
    await e.client.call('RespondActivityTaskCanceled', { taskToken: work.taskToken, details: 'stopped' });
    const events = await run.history();
    expect(compact(events, ['activityId', 'scheduledEventId', 'startedEventId', 'latestCancelRequestedEventId', 'decisionTaskCompletedEventId']).split(' / ').slice(4).join(' / '))
      .toBe('5 ActivityTaskScheduled activityId=a1,decisionTaskCompletedEventId=4 / 6 RequestCancelActivityTaskFailed activityId=nope,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled'
        + ' / 8 ActivityTaskStarted scheduledEventId=5 / 9 DecisionTaskStarted scheduledEventId=7 / 10 DecisionTaskCompleted scheduledEventId=7,startedEventId=9'
        + ' / 11 ActivityTaskCancelRequested activityId=a1,decisionTaskCompletedEventId=10'
        + ' / 12 ActivityTaskCanceled scheduledEventId=5,startedEventId=8,latestCancelRequestedEventId=11 / 13 DecisionTaskScheduled');
    expect(attributesOf(events[11]!).details).toBe('stopped');
    expect((await run.describe()).openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 1 });
    // The task is closed now.
    await expect(e.client.call('RecordActivityTaskHeartbeat', { taskToken: work.taskToken })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
  });
});

describe('ScheduleLambdaFunction', () => {
  it('fails with ScheduleLambdaFunctionFailed and a cause, and schedules a new decision task', async () => {
    const run = await start();
    await run.decide([D.lambda('l1', 'myFunction')]);
    const events = await run.history();
    expect(compact(events, X)).toBe(`${HEAD} / 5 ScheduleLambdaFunctionFailed cause=LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION,decisionTaskCompletedEventId=4 / 6 DecisionTaskScheduled`);
    expect(attributesOf(events[4]!)).toMatchObject({ id: 'l1', name: 'myFunction' });
  });
});

describe('UNHANDLED_DECISION', () => {
  it.each([
    ['CompleteWorkflowExecution', D.complete('r'), 'CompleteWorkflowExecutionFailed'],
    ['CancelWorkflowExecution', D.cancel(), 'CancelWorkflowExecutionFailed'],
  ])('%s fails when an activity completed while the decision task was started', async (_n, close, failed) => {
    const run = await start();
    const acts = `acts-${run.workflowId}`;
    await run.decide([D.schedule('a1', 'Full', { taskList: { name: acts } }), D.cancelTimer('nope')]);
    const t = await run.poll();
    expect(t.startedEventId).toBe(8);
    const work = await pollActivity(acts);
    await e.client.call('RespondActivityTaskCompleted', { taskToken: work.taskToken, result: 'r1' });
    await run.respond(t.taskToken, [close]);
    const next = await run.poll();
    expect(next.startedEventId).toBe(14);
    expect(next.previousStartedEventId).toBe(8);
    expect(next.events.map((x) => x.eventType)).toContain('ActivityTaskCompleted');
    await run.respond(next.taskToken, [D.complete('finally')]);
    expect(await run.text()).toBe(`${HEAD} / 5 ActivityTaskScheduled activityId=a1,decisionTaskCompletedEventId=4 / 6 CancelTimerFailed timerId=nope,cause=TIMER_ID_UNKNOWN,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled`
      + ' / 8 DecisionTaskStarted / 9 ActivityTaskStarted / 10 ActivityTaskCompleted / 11 DecisionTaskCompleted'
      + ` / 12 ${failed} cause=UNHANDLED_DECISION,decisionTaskCompletedEventId=11 / 13 DecisionTaskScheduled`
      + ' / 14 DecisionTaskStarted / 15 DecisionTaskCompleted / 16 WorkflowExecutionCompleted decisionTaskCompletedEventId=15');
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });
  });

  it('CompleteWorkflowExecution fails when a signal arrived while the decider held the task, and the next task sees the signal', async () => {
    const run = await start();
    const t = await run.poll();
    expect(t.startedEventId).toBe(3);
    await e.client.call('SignalWorkflowExecution', { domain, workflowId: run.workflowId, signalName: 'stop', input: 'now' });
    await run.respond(t.taskToken, [D.complete('too early')]);
    const next = await run.poll();
    expect(next.previousStartedEventId).toBe(3);
    const signaled = next.events.find((x) => x.eventType === 'WorkflowExecutionSignaled')!;
    expect(attributesOf(signaled)).toMatchObject({ signalName: 'stop', input: 'now' });
    await run.respond(next.taskToken, [D.complete('done')]);
    expect(await run.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 WorkflowExecutionSignaled'
      + ' / 5 DecisionTaskCompleted / 6 CompleteWorkflowExecutionFailed cause=UNHANDLED_DECISION,decisionTaskCompletedEventId=5 / 7 DecisionTaskScheduled'
      + ' / 8 DecisionTaskStarted / 9 DecisionTaskCompleted / 10 WorkflowExecutionCompleted decisionTaskCompletedEventId=9');
  });

  it('FailWorkflowExecution fails when a timer fired while the decision task was started', async () => {
    const run = await start();
    await run.decide([D.startTimer('t', '1'), D.cancelTimer('nope')]);
    const t = await run.poll();
    await run.waitFor(9);
    await run.respond(t.taskToken, [D.marker('still-recorded'), D.fail('too late')]);
    const next = await run.poll();
    expect(next.previousStartedEventId).toBe(8);
    expect(next.events.filter((x) => x.eventId > 8).map((x) => x.eventType)).toEqual([
      'TimerFired', 'DecisionTaskCompleted', 'MarkerRecorded', 'FailWorkflowExecutionFailed', 'DecisionTaskScheduled', 'DecisionTaskStarted',
    ]);
    await run.respond(next.taskToken, [D.fail('now')]);
    expect(await run.text()).toBe(`${HEAD} / 5 TimerStarted timerId=t,decisionTaskCompletedEventId=4 / 6 CancelTimerFailed timerId=nope,cause=TIMER_ID_UNKNOWN,decisionTaskCompletedEventId=4 / 7 DecisionTaskScheduled`
      + ' / 8 DecisionTaskStarted / 9 TimerFired timerId=t / 10 DecisionTaskCompleted / 11 MarkerRecorded decisionTaskCompletedEventId=10'
      + ' / 12 FailWorkflowExecutionFailed cause=UNHANDLED_DECISION,decisionTaskCompletedEventId=10 / 13 DecisionTaskScheduled'
      + ' / 14 DecisionTaskStarted / 15 DecisionTaskCompleted / 16 WorkflowExecutionFailed decisionTaskCompletedEventId=15');
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'FAILED' });
  });
});

describe('one open decision task per execution', () => {
  it('several triggers while a decision task is started or scheduled add exactly one decision task', async () => {
    const run = await start();
    const acts = `acts-${run.workflowId}`;
    await run.decide([
      D.schedule('a1', 'Full', { taskList: { name: acts } }), D.schedule('a2', 'Full', { taskList: { name: acts } }),
      D.schedule('a3', 'Full', { taskList: { name: acts } }), D.cancelTimer('nope'),
    ]);
    const t = await run.poll();
    expect(t.startedEventId).toBe(10);
    const works = [await pollActivity(acts), await pollActivity(acts), await pollActivity(acts)];
    expect(works.map((w) => w.activityId).sort()).toEqual(['a1', 'a2', 'a3']);
    // Two results and a failed decision while the decision task is started: no task yet.
    await e.client.call('RespondActivityTaskCompleted', { taskToken: works[0]!.taskToken });
    await e.client.call('RespondActivityTaskFailed', { taskToken: works[1]!.taskToken, reason: 'boom' });
    expect((await run.describe()).openCounts).toMatchObject({ openDecisionTasks: 1, openActivityTasks: 1 });
    await run.respond(t.taskToken, [D.cancelTimer('nope-again')]);
    // A third result while the follow-up task is scheduled: still one task.
    await e.client.call('RespondActivityTaskCompleted', { taskToken: works[2]!.taskToken });
    expect((await run.describe()).openCounts).toMatchObject({ openDecisionTasks: 1, openActivityTasks: 0 });
    const types = (await run.history()).map((x) => x.eventType);
    expect(types.slice(10).join(' ')).toBe('ActivityTaskStarted ActivityTaskStarted ActivityTaskStarted ActivityTaskCompleted ActivityTaskFailed DecisionTaskCompleted CancelTimerFailed DecisionTaskScheduled ActivityTaskCompleted');
    expect(types.filter((x) => x === 'DecisionTaskScheduled')).toHaveLength(3);
    const next = await run.poll();
    expect(next.startedEventId).toBe(20);
    expect(next.events.map((x) => x.eventType).slice(10)).toEqual([...types.slice(10), 'DecisionTaskStarted']);
    expect((await e.client.call('CountPendingDecisionTasks', { domain, taskList: { name: run.taskList } })).count).toBe(0);
    await run.respond(next.taskToken, [D.complete()]);
    expect((await run.history()).map((x) => x.eventType).slice(19)).toEqual(['DecisionTaskStarted', 'DecisionTaskCompleted', 'WorkflowExecutionCompleted']);
  });
});

describe('malformed batches', () => {
  it.each([
    ['a close decision that is not last', [D.complete(), D.marker('m')]],
    ['two close decisions', [D.complete(), D.fail()]],
    ['StartTimer without a timerId', [D.marker('m'), { decisionType: 'StartTimer', startTimerDecisionAttributes: { startToFireTimeout: '5' } }]],
    ['StartTimer without startToFireTimeout', [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't' } }]],
    ['StartTimer without attributes', [{ decisionType: 'StartTimer' }]],
    ['ScheduleActivityTask without an activityType', [D.marker('m'), { decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityId: 'a' } }]],
    ['RecordMarker without a markerName', [{ decisionType: 'RecordMarker', recordMarkerDecisionAttributes: {} }]],
    ['an unknown decision type', [{ decisionType: 'DoSomethingElse' }]],
    ['a decision without a type', [{ recordMarkerDecisionAttributes: { markerName: 'm' } }]],
    ['a bad duration', [D.startTimer('t', 'soon')]],
  ])('rejects %s with ValidationException and writes nothing', async (_n, decisions) => {
    const run = await start();
    const t = await run.poll();
    const before = await run.text();
    await expect(run.respond(t.taskToken, decisions)).rejects.toMatchObject({ name: 'ValidationException' });
    expect(await run.text()).toBe(before);
    expect(before).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted');
    // The same token is still valid.
    await run.respond(t.taskToken, [D.marker('ok'), D.complete()]);
    expect(await run.text()).toBe(`${HEAD} / 5 MarkerRecorded decisionTaskCompletedEventId=4 / 6 WorkflowExecutionCompleted decisionTaskCompletedEventId=4`);
  });
});

describe('history paging', () => {
  /** A run with 12 events whose third event is the previous completed DecisionTaskStarted. */
  async function twelveEventRun(): Promise<Run> {
    const run = await start();
    await run.decide([D.marker('m1'), D.marker('m2'), D.marker('m3'), D.marker('m4'), D.marker('m5'), D.cancelTimer('nope')]);
    return run;
  }

  it('GetWorkflowExecutionHistory pages concatenate to the full history, forwards and reversed', async () => {
    const run = await twelveEventRun();
    await run.poll();
    const full = await run.history();
    expect(full.map((x) => x.eventId)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (const reverseOrder of [false, true]) {
      const pages: WireEvent[][] = [];
      let nextPageToken: string | undefined;
      do {
        const page = await e.client.call('GetWorkflowExecutionHistory', { domain, execution: run.execution, maximumPageSize: 3, reverseOrder, nextPageToken });
        pages.push(page.events);
        nextPageToken = page.nextPageToken;
      } while (nextPageToken);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 3]);
      expect(pages.flat()).toEqual(reverseOrder ? [...full].reverse() : full);
    }
    const rev = await e.client.call('GetWorkflowExecutionHistory', { domain, execution: run.execution, reverseOrder: true });
    expect(rev.events.map((x: WireEvent) => x.eventId)).toEqual(Array.from({ length: 12 }, (_, i) => 12 - i));
    expect(rev.nextPageToken).toBeUndefined();
  });

  it('GetWorkflowExecutionHistory refuses a tampered or foreign nextPageToken', async () => {
    const run = await twelveEventRun();
    const other = await twelveEventRun();
    const first = await e.client.call('GetWorkflowExecutionHistory', { domain, execution: run.execution, maximumPageSize: 3 });
    const token: string = first.nextPageToken;
    expect(token).toBeTruthy();
    const foreign = (await e.client.call('GetWorkflowExecutionHistory', { domain, execution: other.execution, maximumPageSize: 3 })).nextPageToken;
    const at = Math.floor(token.length / 3);
    const flipped = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    for (const bad of [flipped, `x${token}`, token.slice(0, -4), 'not-a-token', foreign]) {
      await expect(e.client.call('GetWorkflowExecutionHistory', { domain, execution: run.execution, maximumPageSize: 3, nextPageToken: bad }))
        .rejects.toMatchObject({ name: 'ValidationException' });
    }
    // The real token still works.
    const second = await e.client.call('GetWorkflowExecutionHistory', { domain, execution: run.execution, maximumPageSize: 3, nextPageToken: token });
    expect(second.events.map((x: WireEvent) => x.eventId)).toEqual([4, 5, 6]);
  });

  it('PollForDecisionTask pages one task through nextPageToken without starting another', async () => {
    const run = await twelveEventRun();
    const first = await run.poll({ maximumPageSize: 2 });
    expect(first.startedEventId).toBe(12);
    expect(first.previousStartedEventId).toBe(3);
    expect(first.events.map((x) => x.eventId)).toEqual([1, 2]);
    expect(first.nextPageToken).toBeTruthy();
    const all = [...first.events];
    let nextPageToken = first.nextPageToken;
    let pages = 1;
    while (nextPageToken) {
      const page = await e.client.call<DecisionTask>('PollForDecisionTask', { domain, taskList: { name: run.taskList }, identity: 'decider', afPollTimeoutMs: 2000, maximumPageSize: 2, nextPageToken });
      expect(page.taskToken).toBe(first.taskToken);
      expect(page.startedEventId).toBe(12);
      expect(page.previousStartedEventId).toBe(3);
      expect(page.events.length).toBeLessThanOrEqual(2);
      all.push(...page.events);
      nextPageToken = page.nextPageToken;
      pages++;
    }
    expect(pages).toBe(6);
    const history = await run.history();
    expect(all).toEqual(history);
    expect(history.filter((x) => x.eventType === 'DecisionTaskStarted').map((x) => x.eventId)).toEqual([3, 12]);
    // A tampered decision page token is a ValidationException too.
    const [raw, key] = first.nextPageToken!.split('.');
    for (const bad of [`${raw}.garbage`, `x${raw}.${key}`, 'nonsense']) {
      await expect(e.client.call('PollForDecisionTask', { domain, taskList: { name: run.taskList }, afPollTimeoutMs: 2000, nextPageToken: bad }))
        .rejects.toMatchObject({ name: 'ValidationException' });
    }
    // The paged task is answered normally and the next one names it as previous.
    await run.respond(first.taskToken, [D.cancelTimer('again')]);
    const next = await run.poll();
    expect(next.previousStartedEventId).toBe(12);
    expect(next.startedEventId).toBe(16);
  });
});

describe('DescribeWorkflowExecution', () => {
  it('reports openCounts, latestExecutionContext and latestActivityTaskTimestamp as the run moves', async () => {
    const run = await start();
    const acts = `acts-${run.workflowId}`;
    let d = await run.describe();
    expect(d.openCounts).toEqual({ openActivityTasks: 0, openDecisionTasks: 1, openTimers: 0, openChildWorkflowExecutions: 0, openLambdaFunctions: 0 });
    expect(d.latestExecutionContext).toBeUndefined();
    expect(d.latestActivityTaskTimestamp).toBeUndefined();

    const t1 = await run.poll();
    expect((await run.describe()).openCounts).toMatchObject({ openDecisionTasks: 1 });
    await run.respond(t1.taskToken, [
      D.schedule('a1', 'Full', { taskList: { name: acts } }), D.schedule('a2', 'Full', { taskList: { name: acts } }), D.startTimer('t', '60'),
    ], { executionContext: 'ctx-1' });
    let events = await run.history();
    d = await run.describe();
    expect(d.openCounts).toMatchObject({ openActivityTasks: 2, openDecisionTasks: 0, openTimers: 1 });
    expect(d.latestExecutionContext).toBe('ctx-1');
    expect(d.latestActivityTaskTimestamp).toBe(events[5]!.eventTimestamp);
    expect(attributesOf(events[3]!).executionContext).toBe('ctx-1');

    const work = await pollActivity(acts);
    await e.client.call('RespondActivityTaskCompleted', { taskToken: work.taskToken, result: 'x' });
    d = await run.describe();
    expect(d.openCounts).toMatchObject({ openActivityTasks: 1, openDecisionTasks: 1, openTimers: 1 });

    await sleep(20);
    await run.decide([D.cancelTimer('t'), D.schedule('a3', 'Full', { taskList: { name: acts } })], { executionContext: 'ctx-2' });
    events = await run.history();
    d = await run.describe();
    expect(d.openCounts).toMatchObject({ openActivityTasks: 2, openDecisionTasks: 0, openTimers: 0 });
    expect(d.latestExecutionContext).toBe('ctx-2');
    const a3 = events.find((x) => x.eventType === 'ActivityTaskScheduled' && attributesOf(x).activityId === 'a3')!;
    expect(d.latestActivityTaskTimestamp).toBe(a3.eventTimestamp);
    expect(a3.eventTimestamp).toBeGreaterThan(events[5]!.eventTimestamp);
  });
});
