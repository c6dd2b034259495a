import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { compact, startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/*
 * The operations on executions (Signal, RequestCancel, Terminate) and the decisions that act on
 * runs (ContinueAsNew, StartChild, SignalExternal, RequestCancelExternal), driven by hand with
 * exact histories (swf-api.md sections 2-5), plus child policies and the 25,000-event limit.
 */

let e: TestEngine;
const domain = uniqueDomain('execops');
const WF = { name: 'Ops', version: '1' };
const CHILD = { name: 'Kid', version: '1' };
const ACT = { name: 'Work', version: '1' };
const WF_DEFAULTS = {
  defaultTaskList: { name: 'nobody-polls-this' }, defaultChildPolicy: 'TERMINATE',
  defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
};

beforeAll(async () => {
  e = await startTestEngine();
  await e.client.ensureDomain(domain);
  for (const name of [WF.name, CHILD.name]) {
    await e.client.call('RegisterWorkflowType', { domain, name, version: '1', ...WF_DEFAULTS });
    await e.client.call('RegisterWorkflowType', { domain, name, version: 'old', ...WF_DEFAULTS });
    await e.client.call('DeprecateWorkflowType', { domain, workflowType: { name, version: 'old' } });
    await e.client.call('RegisterWorkflowType', { domain, name, version: 'bare' });
  }
  await e.client.call('RegisterWorkflowType', {
    domain, ...WF, version: '2', ...WF_DEFAULTS, defaultTaskStartToCloseTimeout: '20', defaultChildPolicy: 'ABANDON', defaultTaskPriority: '7',
  });
  await e.client.call('RegisterActivityType', {
    domain, ...ACT, defaultTaskList: { name: 'acts' }, defaultTaskScheduleToStartTimeout: '300', defaultTaskStartToCloseTimeout: '60',
    defaultTaskScheduleToCloseTimeout: '360', defaultTaskHeartbeatTimeout: 'NONE',
  });
}, 30_000);
afterAll(async () => { await e?.stop(); });

// ---- decisions -------------------------------------------------------------------------------

const D = {
  schedule: (activityId: string, taskList: string) => ({
    decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId, taskList: { name: taskList } },
  }),
  complete: (result?: string) => ({ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result } }),
  fail: (reason?: string, details?: string) => ({ decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason, details } }),
  cancel: (details?: string) => ({ decisionType: 'CancelWorkflowExecution', cancelWorkflowExecutionDecisionAttributes: { details } }),
  marker: (markerName: string) => ({ decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName } }),
  /** A decision that fails (CancelTimerFailed), so that a decision task follows the batch. */
  nudge: () => ({ decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId: 'no-such-timer' } }),
  continueAsNew: (attrs: object = {}) => ({ decisionType: 'ContinueAsNewWorkflowExecution', continueAsNewWorkflowExecutionDecisionAttributes: attrs }),
  startChild: (workflowId: string, attrs: object = {}) => ({
    decisionType: 'StartChildWorkflowExecution', startChildWorkflowExecutionDecisionAttributes: { workflowType: CHILD, workflowId, ...attrs },
  }),
  signalExternal: (workflowId: string, signalName: string, attrs: object = {}) => ({
    decisionType: 'SignalExternalWorkflowExecution', signalExternalWorkflowExecutionDecisionAttributes: { workflowId, signalName, ...attrs },
  }),
  cancelExternal: (workflowId: string, attrs: object = {}) => ({
    decisionType: 'RequestCancelExternalWorkflowExecution', requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId, ...attrs },
  }),
};

// ---- one hand-driven execution ---------------------------------------------------------------

interface DecisionTask { taskToken: string; startedEventId: number; previousStartedEventId: number; workflowExecution: { workflowId: string; runId: string }; events: WireEvent[] }

let seq = 0;
const nextId = (label = 'wf') => `${label}-${++seq}`;

class Run {
  constructor(readonly workflowId: string, readonly runId: string, readonly taskList: string) {}

  get execution() { return { workflowId: this.workflowId, runId: this.runId }; }

  /** Polls this run's own decision task list (one per workflowId, so tests never see each other's tasks). */
  async poll(): Promise<DecisionTask> {
    const t = await e.client.call<DecisionTask>('PollForDecisionTask', { domain, taskList: { name: this.taskList }, identity: 'decider', afPollTimeoutMs: 5000 });
    expect(t.taskToken, `a decision task was expected for ${this.workflowId}`).toBeTruthy();
    return t;
  }

  respond(taskToken: string, decisions: object[]) {
    return e.client.call('RespondDecisionTaskCompleted', { taskToken, decisions });
  }

  /** Polls a decision task and answers it. */
  async decide(decisions: object[]): Promise<DecisionTask> {
    const t = await this.poll();
    await this.respond(t.taskToken, decisions);
    return t;
  }

  history(): Promise<WireEvent[]> {
    return e.client.history(domain, this.execution);
  }

  async text(attrs: string[] = []): Promise<string> {
    return compact(await this.history(), attrs);
  }

  describe() {
    return e.client.call('DescribeWorkflowExecution', { domain, execution: this.execution });
  }

  /** Waits until the history has `n` events and returns it. */
  async waitFor(n: number): Promise<WireEvent[]> {
    let events: WireEvent[] = [];
    await until(async () => (events = await this.history()).length >= n, { timeoutMs: 8000, message: `${n} events in ${this.workflowId}` });
    return events;
  }

  /** Waits for an event of this type and returns it. */
  async waitForEvent(type: string): Promise<WireEvent> {
    let found: WireEvent | undefined;
    await until(async () => (found = (await this.history()).find((x) => x.eventType === type)) !== undefined,
      { timeoutMs: 8000, message: `${type} in ${this.workflowId}` });
    return found!;
  }
}

async function start(opts: { workflowId?: string; type?: object; input?: string; executionStartToCloseTimeout?: string; childPolicy?: string } = {}): Promise<Run> {
  const workflowId = opts.workflowId ?? nextId();
  const taskList = `decide-${workflowId}`;
  const { runId } = await e.client.call('StartWorkflowExecution', {
    domain, workflowId, workflowType: opts.type ?? WF, taskList: { name: taskList }, input: opts.input,
    executionStartToCloseTimeout: opts.executionStartToCloseTimeout, childPolicy: opts.childPolicy,
  });
  return new Run(workflowId, runId, taskList);
}

/** The child a parent started, once its ChildWorkflowExecutionStarted is in the parent's history. */
async function childOf(parent: Run, initiatedEventId = 5): Promise<Run> {
  let started: WireEvent | undefined;
  await until(async () => {
    started = (await parent.history()).find((x) => x.eventType === 'ChildWorkflowExecutionStarted' && attributesOf(x).initiatedEventId === initiatedEventId);
    return started !== undefined;
  }, { timeoutMs: 8000, message: `ChildWorkflowExecutionStarted in ${parent.workflowId}` });
  const { workflowId, runId } = attributesOf(started!).workflowExecution as { workflowId: string; runId: string };
  return new Run(workflowId, runId, `decide-${workflowId}`);
}

/** StartChild decision attributes that route the child's decision tasks to its own task list. */
const childList = (workflowId: string) => ({ taskList: { name: `decide-${workflowId}` } });

const call = (action: string, input: object) => e.client.call(action, { domain, ...input });
const UNKNOWN = { name: 'UnknownResourceFault' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HEAD = '1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 DecisionTaskCompleted';
/** HEAD when startedEventId is shown. */
const HEAD_S = `${HEAD} startedEventId=3`;
const DTC = 'decisionTaskCompletedEventId';

// ---- operations on executions ----------------------------------------------------------------

describe('SignalWorkflowExecution', () => {
  it('without a runId signals the open run: WorkflowExecutionSignaled and a decision task', async () => {
    const run = await start();
    await run.decide([D.marker('m')]);
    expect(await call('SignalWorkflowExecution', { workflowId: run.workflowId, signalName: 'wake', input: 'payload' })).toEqual({});
    const events = await run.history();
    expect(compact(events, ['signalName', 'input'])).toBe(`${HEAD} / 5 MarkerRecorded / 6 WorkflowExecutionSignaled signalName=wake,input=payload / 7 DecisionTaskScheduled`);
    expect(attributesOf(events[5]!)).toEqual({ signalName: 'wake', input: 'payload' });
    expect((await run.describe()).openCounts).toMatchObject({ openDecisionTasks: 1 });
    // The decider sees the signal.
    const t = await run.poll();
    expect(t.events.map((x) => x.eventType).slice(5)).toEqual(['WorkflowExecutionSignaled', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    expect(t.previousStartedEventId).toBe(3);
  });

  it('with a runId signals that run; signals while a task is scheduled add no second decision task', async () => {
    const run = await start();
    await call('SignalWorkflowExecution', { workflowId: run.workflowId, runId: run.runId, signalName: 's1' });
    await call('SignalWorkflowExecution', { workflowId: run.workflowId, runId: run.runId, signalName: 's2', input: 'two' });
    const events = await run.history();
    expect(compact(events, ['signalName', 'input'])).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionSignaled signalName=s1 / 4 WorkflowExecutionSignaled signalName=s2,input=two');
    expect(attributesOf(events[2]!)).toEqual({ signalName: 's1' });
  });

  it('fails with UnknownResourceFault for a closed run (with or without runId) and an unknown workflowId', async () => {
    const run = await start();
    await run.decide([D.complete()]);
    await expect(call('SignalWorkflowExecution', { workflowId: run.workflowId, runId: run.runId, signalName: 's' })).rejects.toMatchObject(UNKNOWN);
    await expect(call('SignalWorkflowExecution', { workflowId: run.workflowId, signalName: 's' })).rejects.toMatchObject(UNKNOWN);
    await expect(call('SignalWorkflowExecution', { workflowId: 'no-such-workflow', signalName: 's' })).rejects.toMatchObject(UNKNOWN);
    const other = await start();
    await expect(call('SignalWorkflowExecution', { workflowId: other.workflowId, runId: run.runId, signalName: 's' })).rejects.toMatchObject(UNKNOWN);
    expect(await run.text()).toBe(`${HEAD} / 5 WorkflowExecutionCompleted`);
    expect(await other.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled');
  });
});

describe('RequestCancelWorkflowExecution', () => {
  it('records WorkflowExecutionCancelRequested, sets cancelRequested, and the decider cancels the run', async () => {
    const run = await start();
    await run.decide([D.marker('m')]);
    expect((await run.describe()).executionInfo.cancelRequested).toBe(false);
    expect(await call('RequestCancelWorkflowExecution', { workflowId: run.workflowId })).toEqual({});
    let events = await run.history();
    expect(compact(events)).toBe(`${HEAD} / 5 MarkerRecorded / 6 WorkflowExecutionCancelRequested / 7 DecisionTaskScheduled`);
    expect(attributesOf(events[5]!)).toEqual({});
    const d = await run.describe();
    expect(d.executionInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
    expect(d.openCounts).toMatchObject({ openDecisionTasks: 1 });
    await run.decide([D.cancel('as asked')]);
    events = await run.history();
    expect(compact(events, [DTC])).toBe(`${HEAD} / 5 MarkerRecorded ${DTC}=4 / 6 WorkflowExecutionCancelRequested / 7 DecisionTaskScheduled / 8 DecisionTaskStarted / 9 DecisionTaskCompleted / 10 WorkflowExecutionCanceled ${DTC}=9`);
    expect(attributesOf(events[9]!)).toEqual({ details: 'as asked', decisionTaskCompletedEventId: 9 });
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'CANCELED', cancelRequested: true });
  });

  it('with a runId; a closed run or an unknown workflowId is UnknownResourceFault', async () => {
    const run = await start();
    await call('RequestCancelWorkflowExecution', { workflowId: run.workflowId, runId: run.runId });
    expect(await run.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionCancelRequested');
    await call('TerminateWorkflowExecution', { workflowId: run.workflowId });
    await expect(call('RequestCancelWorkflowExecution', { workflowId: run.workflowId, runId: run.runId })).rejects.toMatchObject(UNKNOWN);
    await expect(call('RequestCancelWorkflowExecution', { workflowId: run.workflowId })).rejects.toMatchObject(UNKNOWN);
    await expect(call('RequestCancelWorkflowExecution', { workflowId: 'no-such-workflow' })).rejects.toMatchObject(UNKNOWN);
  });
});

describe('TerminateWorkflowExecution', () => {
  it('closes the run as TERMINATED (OPERATOR_INITIATED); its open task tokens are dead afterwards', async () => {
    const run = await start();
    const acts = `acts-${run.workflowId}`;
    await run.decide([D.schedule('a1', acts), D.schedule('a2', acts), D.nudge()]);
    const work = await e.client.call('PollForActivityTask', { domain, taskList: { name: acts }, identity: 'worker', afPollTimeoutMs: 2000 });
    expect(work.taskToken).toBeTruthy();
    const decision = await run.poll();
    expect(await call('TerminateWorkflowExecution', { workflowId: run.workflowId, reason: 'operator said so', details: 'more words' })).toEqual({});
    const events = await run.history();
    expect(compact(events, ['cause'])).toBe(`${HEAD} / 5 ActivityTaskScheduled / 6 ActivityTaskScheduled / 7 CancelTimerFailed cause=TIMER_ID_UNKNOWN / 8 DecisionTaskScheduled`
      + ' / 9 ActivityTaskStarted / 10 DecisionTaskStarted / 11 WorkflowExecutionTerminated cause=OPERATOR_INITIATED');
    expect(attributesOf(events[10]!)).toEqual({ reason: 'operator said so', details: 'more words', childPolicy: 'TERMINATE', cause: 'OPERATOR_INITIATED' });
    const d = await run.describe();
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
    expect(d.executionInfo.closeTimestamp).toBe(events[10]!.eventTimestamp);
    expect(d.openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 0, openTimers: 0, openChildWorkflowExecutions: 0 });
    // Every task of the run is gone: started ones answer UnknownResourceFault, unstarted ones are never handed out.
    await expect(e.client.call('RespondActivityTaskCompleted', { taskToken: work.taskToken, result: 'late' })).rejects.toMatchObject(UNKNOWN);
    await expect(e.client.call('RecordActivityTaskHeartbeat', { taskToken: work.taskToken })).rejects.toMatchObject(UNKNOWN);
    await expect(run.respond(decision.taskToken, [D.complete()])).rejects.toMatchObject(UNKNOWN);
    const none = await e.client.call('PollForActivityTask', { domain, taskList: { name: acts }, identity: 'worker', afPollTimeoutMs: 1000 });
    expect(none.taskToken).toBeUndefined();
    expect((await run.history()).length).toBe(11);
  });

  it('takes a childPolicy and a runId; terminating a closed run or an unknown one is UnknownResourceFault', async () => {
    const run = await start();
    await call('TerminateWorkflowExecution', { workflowId: run.workflowId, runId: run.runId, childPolicy: 'ABANDON' });
    const events = await run.history();
    expect(compact(events)).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionTerminated');
    expect(attributesOf(events[2]!)).toEqual({ childPolicy: 'ABANDON', cause: 'OPERATOR_INITIATED' });
    await expect(call('TerminateWorkflowExecution', { workflowId: run.workflowId, runId: run.runId })).rejects.toMatchObject(UNKNOWN);
    await expect(call('TerminateWorkflowExecution', { workflowId: run.workflowId })).rejects.toMatchObject(UNKNOWN);
    await expect(call('TerminateWorkflowExecution', { workflowId: 'no-such-workflow' })).rejects.toMatchObject(UNKNOWN);
    // The workflowId is free again.
    const again = await start({ workflowId: run.workflowId });
    expect(again.runId).not.toBe(run.runId);
  });
});

// ---- ContinueAsNewWorkflowExecution ----------------------------------------------------------

describe('ContinueAsNewWorkflowExecution', () => {
  it('closes the run as CONTINUED_AS_NEW and starts the next run of the same workflowId', async () => {
    const run = await start({ input: 'first' });
    const newList = `${run.taskList}-next`;
    await run.decide([D.marker('m'), D.continueAsNew({ input: 'second', taskList: { name: newList }, tagList: ['t1'] })]);
    const events = await run.history();
    expect(compact(events, [DTC])).toBe(`${HEAD} / 5 MarkerRecorded ${DTC}=4 / 6 WorkflowExecutionContinuedAsNew ${DTC}=4`);
    const cont = attributesOf(events[5]!);
    expect(cont.newExecutionRunId).toMatch(/^[0-9a-f]{32}$/);
    expect(cont).toEqual({
      input: 'second', decisionTaskCompletedEventId: 4, newExecutionRunId: cont.newExecutionRunId, executionStartToCloseTimeout: '3600',
      taskList: { name: newList }, taskPriority: '0', taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE', tagList: ['t1'], workflowType: WF,
    });
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'CONTINUED_AS_NEW' });

    const next = new Run(run.workflowId, cont.newExecutionRunId, newList);
    const nextEvents = await next.waitFor(2);
    expect(compact(nextEvents)).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled');
    expect(attributesOf(nextEvents[0]!)).toEqual({
      input: 'second', taskList: { name: newList }, executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE',
      taskPriority: '0', workflowType: WF, tagList: ['t1'], continuedExecutionRunId: run.runId,
    });
    expect(attributesOf(nextEvents[1]!)).toMatchObject({ taskList: { name: newList } });
    expect((await next.describe()).executionInfo).toMatchObject({ executionStatus: 'OPEN', tagList: ['t1'] });
    // The workflowId now names the new run: a signal without runId goes there, a start is refused.
    await call('SignalWorkflowExecution', { workflowId: run.workflowId, signalName: 'hello' });
    expect(await next.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionSignaled');
    await expect(start({ workflowId: run.workflowId })).rejects.toMatchObject({ name: 'WorkflowExecutionAlreadyStartedFault' });
    const t = await next.poll();
    expect(t.workflowExecution).toEqual(next.execution);
    expect(t.previousStartedEventId).toBe(0);
  });

  it('continues with another workflowTypeVersion and that version\'s defaults', async () => {
    const run = await start();
    await run.decide([D.continueAsNew({ workflowTypeVersion: '2', taskList: { name: `${run.taskList}-v2` } })]);
    const cont = attributesOf((await run.history())[4]!);
    expect(cont).toMatchObject({ workflowType: { ...WF, version: '2' }, taskStartToCloseTimeout: '20', childPolicy: 'ABANDON', taskPriority: '7' });
    const next = new Run(run.workflowId, cont.newExecutionRunId, `${run.taskList}-v2`);
    const started = attributesOf((await next.waitFor(2))[0]!);
    expect(started).toMatchObject({ workflowType: { ...WF, version: '2' }, taskStartToCloseTimeout: '20', childPolicy: 'ABANDON', taskPriority: '7', continuedExecutionRunId: run.runId });
  });

  it.each([
    ['WORKFLOW_TYPE_DOES_NOT_EXIST', { workflowTypeVersion: 'no-such-version' }],
    ['WORKFLOW_TYPE_DEPRECATED', { workflowTypeVersion: 'old' }],
    ['DEFAULT_TASK_LIST_UNDEFINED', { workflowTypeVersion: 'bare' }],
    ['DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED', { workflowTypeVersion: 'bare', taskList: { name: 'x' } }],
    ['DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED', { workflowTypeVersion: 'bare', taskList: { name: 'x' }, executionStartToCloseTimeout: '60' }],
    ['DEFAULT_CHILD_POLICY_UNDEFINED', { workflowTypeVersion: 'bare', taskList: { name: 'x' }, executionStartToCloseTimeout: '60', taskStartToCloseTimeout: '10' }],
  ])('fails with %s: the run stays open and gets a new decision task', async (cause, attrs) => {
    const run = await start();
    await run.decide([D.continueAsNew(attrs)]);
    const events = await run.history();
    expect(compact(events, ['cause', DTC])).toBe(`${HEAD} / 5 ContinueAsNewWorkflowExecutionFailed cause=${cause},${DTC}=4 / 6 DecisionTaskScheduled`);
    expect(attributesOf(events[4]!)).toEqual({ cause, decisionTaskCompletedEventId: 4 });
    expect((await run.describe()).executionInfo).toMatchObject({ executionStatus: 'OPEN' });
  });

  it('fails with UNHANDLED_DECISION when a signal arrived while the decision task was open', async () => {
    const run = await start();
    const t = await run.poll();
    await call('SignalWorkflowExecution', { workflowId: run.workflowId, signalName: 'meanwhile' });
    await run.respond(t.taskToken, [D.continueAsNew()]);
    const next = await run.poll();
    expect(next.previousStartedEventId).toBe(3);
    expect(compact(await run.history(), ['cause', DTC])).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 WorkflowExecutionSignaled'
      + ` / 5 DecisionTaskCompleted / 6 ContinueAsNewWorkflowExecutionFailed cause=UNHANDLED_DECISION,${DTC}=5 / 7 DecisionTaskScheduled / 8 DecisionTaskStarted`);
    // Having seen the signal, the decider may continue as new.
    await run.respond(next.taskToken, [D.continueAsNew()]);
    expect((await run.describe()).executionInfo).toMatchObject({ closeStatus: 'CONTINUED_AS_NEW' });
  });
});

// ---- StartChildWorkflowExecution -------------------------------------------------------------

describe('StartChildWorkflowExecution', () => {
  it('starts a child that completes: Initiated, ChildWorkflowExecutionStarted, ChildWorkflowExecutionCompleted', async () => {
    const parent = await start();
    const childId = nextId('child');
    await parent.decide([D.startChild(childId, { ...childList(childId), input: 'child-in', control: 'ctl', tagList: ['kid'] })]);
    const child = await childOf(parent);
    let events = await parent.waitFor(7);
    expect(compact(events, ['initiatedEventId', 'startedEventId', DTC])).toBe(`${HEAD_S} / 5 StartChildWorkflowExecutionInitiated ${DTC}=4`
      + ' / 6 ChildWorkflowExecutionStarted initiatedEventId=5 / 7 DecisionTaskScheduled');
    expect(attributesOf(events[4]!)).toEqual({
      workflowId: childId, workflowType: CHILD, control: 'ctl', input: 'child-in', taskList: { name: `decide-${childId}` },
      executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE', taskPriority: '0', tagList: ['kid'],
      decisionTaskCompletedEventId: 4,
    });
    expect(attributesOf(events[5]!)).toEqual({ workflowExecution: child.execution, workflowType: CHILD, initiatedEventId: 5 });
    expect(child.runId).toMatch(/^[0-9a-f]{32}$/);

    // The child knows its parent.
    const childEvents = await child.history();
    expect(compact(childEvents)).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled');
    expect(attributesOf(childEvents[0]!)).toEqual({
      input: 'child-in', taskList: { name: `decide-${childId}` }, executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '30',
      childPolicy: 'TERMINATE', taskPriority: '0', workflowType: CHILD, tagList: ['kid'],
      parentWorkflowExecution: parent.execution, parentInitiatedEventId: 5,
    });
    expect((await child.describe()).executionInfo).toMatchObject({ executionStatus: 'OPEN', parent: parent.execution });
    expect((await parent.describe()).openCounts).toMatchObject({ openChildWorkflowExecutions: 1, openDecisionTasks: 1 });

    await parent.decide([]);
    await child.decide([D.complete('child-out')]);
    events = await parent.waitFor(11);
    expect(compact(events, ['initiatedEventId', 'startedEventId', DTC])).toBe(`${HEAD_S} / 5 StartChildWorkflowExecutionInitiated ${DTC}=4`
      + ' / 6 ChildWorkflowExecutionStarted initiatedEventId=5 / 7 DecisionTaskScheduled / 8 DecisionTaskStarted / 9 DecisionTaskCompleted startedEventId=8'
      + ' / 10 ChildWorkflowExecutionCompleted initiatedEventId=5,startedEventId=6 / 11 DecisionTaskScheduled');
    expect(attributesOf(events[9]!)).toEqual({ result: 'child-out', workflowExecution: child.execution, workflowType: CHILD, initiatedEventId: 5, startedEventId: 6 });
    expect((await parent.describe()).openCounts).toMatchObject({ openChildWorkflowExecutions: 0, openDecisionTasks: 1 });
    expect((await child.describe()).executionInfo).toMatchObject({ closeStatus: 'COMPLETED', parent: parent.execution });
    // The parent's decider sees the result and completes.
    const t = await parent.poll();
    expect(t.events.map((x) => x.eventType).slice(9)).toEqual(['ChildWorkflowExecutionCompleted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    await parent.respond(t.taskToken, [D.complete()]);
    expect((await parent.describe()).executionInfo).toMatchObject({ closeStatus: 'COMPLETED' });
  });

  it.each([
    ['ChildWorkflowExecutionFailed', { reason: 'bad', details: 'worse' }],
    ['ChildWorkflowExecutionCanceled', { details: 'bye' }],
    ['ChildWorkflowExecutionTerminated', {}],
    ['ChildWorkflowExecutionTimedOut', { timeoutType: 'START_TO_CLOSE' }],
  ])('reports a child closing otherwise as %s', async (reported, attrs) => {
    const parent = await start();
    const childId = nextId('child');
    const timeout = reported === 'ChildWorkflowExecutionTimedOut' ? { executionStartToCloseTimeout: '1' } : {};
    await parent.decide([D.startChild(childId, { ...childList(childId), ...timeout })]);
    const child = await childOf(parent);
    if (reported === 'ChildWorkflowExecutionFailed') await child.decide([D.fail('bad', 'worse')]);
    if (reported === 'ChildWorkflowExecutionCanceled') {
      await call('RequestCancelWorkflowExecution', { workflowId: childId });
      await child.decide([D.cancel('bye')]);
    }
    if (reported === 'ChildWorkflowExecutionTerminated') await call('TerminateWorkflowExecution', { workflowId: childId, reason: 'r' });
    const events = await parent.waitFor(8);
    // The decision task scheduled for ChildWorkflowExecutionStarted is still open: no second one.
    expect(compact(events, ['initiatedEventId', 'startedEventId'])).toBe(`${HEAD_S} / 5 StartChildWorkflowExecutionInitiated`
      + ` / 6 ChildWorkflowExecutionStarted initiatedEventId=5 / 7 DecisionTaskScheduled / 8 ${reported} initiatedEventId=5,startedEventId=6`);
    expect(attributesOf(events[7]!)).toEqual({ ...attrs, workflowExecution: child.execution, workflowType: CHILD, initiatedEventId: 5, startedEventId: 6 });
    expect((await parent.describe()).openCounts).toMatchObject({ openChildWorkflowExecutions: 0, openDecisionTasks: 1 });
  });

  it.each([
    ['WORKFLOW_TYPE_DOES_NOT_EXIST', { workflowType: { name: 'NoSuchType', version: '1' } }],
    ['WORKFLOW_TYPE_DEPRECATED', { workflowType: { ...CHILD, version: 'old' } }],
    ['DEFAULT_TASK_LIST_UNDEFINED', { workflowType: { ...CHILD, version: 'bare' } }],
    ['DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED', { workflowType: { ...CHILD, version: 'bare' }, taskList: { name: 'x' } }],
    ['DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED', { workflowType: { ...CHILD, version: 'bare' }, taskList: { name: 'x' }, executionStartToCloseTimeout: '60' }],
    ['DEFAULT_CHILD_POLICY_UNDEFINED', { workflowType: { ...CHILD, version: 'bare' }, taskList: { name: 'x' }, executionStartToCloseTimeout: '60', taskStartToCloseTimeout: '10' }],
  ])('fails with StartChildWorkflowExecutionFailed %s (initiatedEventId 0) and a new decision task', async (cause, attrs) => {
    const parent = await start();
    const childId = nextId('child');
    await parent.decide([D.startChild(childId, { control: 'c', ...attrs })]);
    const events = await parent.history();
    expect(compact(events, ['cause', 'initiatedEventId', DTC])).toBe(`${HEAD} / 5 StartChildWorkflowExecutionFailed cause=${cause},initiatedEventId=0,${DTC}=4 / 6 DecisionTaskScheduled`);
    expect(attributesOf(events[4]!)).toEqual({
      workflowType: (attrs as { workflowType?: object }).workflowType ?? CHILD, cause, workflowId: childId, initiatedEventId: 0, decisionTaskCompletedEventId: 4, control: 'c',
    });
    // No run was started under that workflowId.
    await expect(call('SignalWorkflowExecution', { workflowId: childId, signalName: 's' })).rejects.toMatchObject(UNKNOWN);
    expect((await parent.describe()).openCounts).toMatchObject({ openChildWorkflowExecutions: 0 });
  });

  it('fails with WORKFLOW_ALREADY_RUNNING when the child workflowId has an open run', async () => {
    const busy = await start();
    const parent = await start();
    await parent.decide([D.startChild(busy.workflowId, { control: 'c' })]);
    const events = await parent.waitFor(7);
    expect(compact(events, ['cause', 'initiatedEventId', DTC])).toBe(`${HEAD} / 5 StartChildWorkflowExecutionInitiated ${DTC}=4`
      + ` / 6 StartChildWorkflowExecutionFailed cause=WORKFLOW_ALREADY_RUNNING,initiatedEventId=5,${DTC}=4 / 7 DecisionTaskScheduled`);
    expect(attributesOf(events[5]!)).toEqual({
      workflowType: CHILD, cause: 'WORKFLOW_ALREADY_RUNNING', workflowId: busy.workflowId, initiatedEventId: 5, decisionTaskCompletedEventId: 4, control: 'c',
    });
    expect((await parent.describe()).openCounts).toMatchObject({ openChildWorkflowExecutions: 0, openDecisionTasks: 1 });
    // The open run was not touched.
    expect(await busy.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled');
  });
});

// ---- child policies --------------------------------------------------------------------------

describe('child policies', () => {
  /** A parent with one running child (parent history: HEAD / 5 Initiated / 6 ChildStarted / 7 DTS). */
  async function family(opts: Parameters<typeof start>[0] = {}): Promise<{ parent: Run; child: Run }> {
    const parent = await start(opts);
    const childId = nextId('child');
    await parent.decide([D.startChild(childId, childList(childId))]);
    const child = await childOf(parent);
    await parent.waitFor(7);
    return { parent, child };
  }

  it('TERMINATE: terminating the parent terminates its open children (CHILD_POLICY_APPLIED)', async () => {
    const { parent, child } = await family();
    expect((await parent.describe()).openCounts).toMatchObject({ openChildWorkflowExecutions: 1 });
    await call('TerminateWorkflowExecution', { workflowId: parent.workflowId, childPolicy: 'TERMINATE' });
    const childEvents = await child.waitFor(3);
    expect(compact(childEvents, ['cause'])).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionTerminated cause=CHILD_POLICY_APPLIED');
    expect(attributesOf(childEvents[2]!)).toEqual({ childPolicy: 'TERMINATE', cause: 'CHILD_POLICY_APPLIED' });
    expect((await child.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
    // The parent is closed: the child's close is not recorded there.
    await sleep(200);
    const parentEvents = await parent.history();
    expect(compact(parentEvents, ['cause'])).toBe(`${HEAD} / 5 StartChildWorkflowExecutionInitiated / 6 ChildWorkflowExecutionStarted`
      + ' / 7 DecisionTaskScheduled / 8 WorkflowExecutionTerminated cause=OPERATOR_INITIATED');
    expect(attributesOf(parentEvents[7]!)).toEqual({ childPolicy: 'TERMINATE', cause: 'OPERATOR_INITIATED' });
    expect((await parent.describe()).executionInfo).toMatchObject({ closeStatus: 'TERMINATED' });
  });

  it('REQUEST_CANCEL: the child gets WorkflowExecutionCancelRequested (CHILD_POLICY_APPLIED) and its decider decides', async () => {
    const { parent, child } = await family();
    await call('TerminateWorkflowExecution', { workflowId: parent.workflowId, childPolicy: 'REQUEST_CANCEL' });
    const childEvents = await child.waitFor(3);
    expect(compact(childEvents, ['cause'])).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionCancelRequested cause=CHILD_POLICY_APPLIED');
    expect(attributesOf(childEvents[2]!)).toEqual({ cause: 'CHILD_POLICY_APPLIED' });
    expect(attributesOf((await parent.history())[7]!)).toEqual({ childPolicy: 'REQUEST_CANCEL', cause: 'OPERATOR_INITIATED' });
    await sleep(200);
    expect((await child.describe()).executionInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
    await child.decide([D.cancel()]);
    expect(await child.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionCancelRequested / 4 DecisionTaskStarted / 5 DecisionTaskCompleted / 6 WorkflowExecutionCanceled');
    expect((await child.describe()).executionInfo).toMatchObject({ closeStatus: 'CANCELED' });
  });

  it('ABANDON: the child keeps running and can complete', async () => {
    const { parent, child } = await family();
    await call('TerminateWorkflowExecution', { workflowId: parent.workflowId, childPolicy: 'ABANDON' });
    await sleep(200);
    expect(await child.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled');
    expect((await child.describe()).executionInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: false });
    await child.decide([D.complete('alone')]);
    expect(await child.text()).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 DecisionTaskCompleted / 5 WorkflowExecutionCompleted');
    expect(await parent.text()).toBe(`${HEAD} / 5 StartChildWorkflowExecutionInitiated / 6 ChildWorkflowExecutionStarted / 7 DecisionTaskScheduled / 8 WorkflowExecutionTerminated`);
  });

  it('a parent timing out applies its child policy (executionStartToCloseTimeout 1 s, TERMINATE)', async () => {
    const { parent, child } = await family({ executionStartToCloseTimeout: '1', childPolicy: 'TERMINATE' });
    const events = await parent.waitFor(8);
    expect(compact(events, ['timeoutType'])).toBe(`${HEAD} / 5 StartChildWorkflowExecutionInitiated / 6 ChildWorkflowExecutionStarted`
      + ' / 7 DecisionTaskScheduled / 8 WorkflowExecutionTimedOut timeoutType=START_TO_CLOSE');
    expect(attributesOf(events[7]!)).toEqual({ timeoutType: 'START_TO_CLOSE', childPolicy: 'TERMINATE' });
    expect((await parent.describe()).executionInfo).toMatchObject({ closeStatus: 'TIMED_OUT' });
    const childEvents = await child.waitFor(3);
    expect(compact(childEvents, ['cause'])).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionTerminated cause=CHILD_POLICY_APPLIED');
    expect((await child.describe()).executionInfo).toMatchObject({ closeStatus: 'TERMINATED' });
  });
});

// ---- SignalExternal / RequestCancelExternal --------------------------------------------------

describe('SignalExternalWorkflowExecution', () => {
  it.each([['without', false], ['with', true]])('signals another run (%s runId): Initiated, ExternalWorkflowExecutionSignaled, and WorkflowExecutionSignaled in the target', async (_n, withRunId) => {
    const target = await start();
    const source = await start();
    await source.decide([D.signalExternal(target.workflowId, 'ping', { input: 'data', control: 'ctl', ...(withRunId ? { runId: target.runId } : {}) })]);
    const events = await source.waitFor(7);
    expect(compact(events, ['initiatedEventId', DTC])).toBe(`${HEAD} / 5 SignalExternalWorkflowExecutionInitiated ${DTC}=4`
      + ' / 6 ExternalWorkflowExecutionSignaled initiatedEventId=5 / 7 DecisionTaskScheduled');
    expect(attributesOf(events[4]!)).toEqual({
      workflowId: target.workflowId, ...(withRunId ? { runId: target.runId } : {}), signalName: 'ping', input: 'data', control: 'ctl', decisionTaskCompletedEventId: 4,
    });
    expect(attributesOf(events[5]!)).toEqual({ workflowExecution: target.execution, initiatedEventId: 5 });
    const targetEvents = await target.history();
    expect(compact(targetEvents)).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionSignaled');
    expect(attributesOf(targetEvents[2]!)).toEqual({ signalName: 'ping', input: 'data', externalWorkflowExecution: source.execution, externalInitiatedEventId: 5 });
  });

  it.each([
    ['an unknown workflowId', async () => ({ workflowId: 'no-such-workflow' })],
    ['a runId that is not of that workflowId', async () => ({ workflowId: (await start()).workflowId, runId: '0123456789abcdef0123456789abcdef' })],
    ['a closed run', async () => { const t = await start(); await call('TerminateWorkflowExecution', { workflowId: t.workflowId }); return { workflowId: t.workflowId, runId: t.runId }; }],
  ])('fails with UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION for %s', async (_n, makeTarget) => {
    const target = await makeTarget();
    const source = await start();
    await source.decide([D.signalExternal(target.workflowId, 'ping', { ...target, control: 'ctl' })]);
    const events = await source.waitFor(7);
    expect(compact(events, ['cause', 'initiatedEventId', DTC])).toBe(`${HEAD} / 5 SignalExternalWorkflowExecutionInitiated ${DTC}=4`
      + ` / 6 SignalExternalWorkflowExecutionFailed cause=UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION,initiatedEventId=5,${DTC}=4 / 7 DecisionTaskScheduled`);
    expect(attributesOf(events[5]!)).toEqual({ ...target, cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION', initiatedEventId: 5, decisionTaskCompletedEventId: 4, control: 'ctl' });
  });
});

describe('RequestCancelExternalWorkflowExecution', () => {
  it('asks another run to cancel: Initiated, ExternalWorkflowExecutionCancelRequested, and WorkflowExecutionCancelRequested in the target', async () => {
    const target = await start();
    const source = await start();
    await source.decide([D.cancelExternal(target.workflowId, { runId: target.runId, control: 'ctl' })]);
    const events = await source.waitFor(7);
    expect(compact(events, ['initiatedEventId', DTC])).toBe(`${HEAD} / 5 RequestCancelExternalWorkflowExecutionInitiated ${DTC}=4`
      + ' / 6 ExternalWorkflowExecutionCancelRequested initiatedEventId=5 / 7 DecisionTaskScheduled');
    expect(attributesOf(events[4]!)).toEqual({ workflowId: target.workflowId, runId: target.runId, control: 'ctl', decisionTaskCompletedEventId: 4 });
    expect(attributesOf(events[5]!)).toEqual({ workflowExecution: target.execution, initiatedEventId: 5 });
    const targetEvents = await target.history();
    expect(compact(targetEvents)).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 WorkflowExecutionCancelRequested');
    expect(attributesOf(targetEvents[2]!)).toEqual({ externalWorkflowExecution: source.execution, externalInitiatedEventId: 5 });
    expect((await target.describe()).executionInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
    await target.decide([D.cancel()]);
    expect((await target.describe()).executionInfo).toMatchObject({ closeStatus: 'CANCELED' });
  });

  it.each([
    ['an unknown workflowId', async () => ({ workflowId: 'no-such-workflow' })],
    ['a closed run', async () => { const t = await start(); await t.decide([D.complete()]); return { workflowId: t.workflowId, runId: t.runId }; }],
  ])('fails with UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION for %s', async (_n, makeTarget) => {
    const target = await makeTarget();
    const source = await start();
    await source.decide([D.cancelExternal(target.workflowId, target)]);
    const events = await source.waitFor(7);
    expect(compact(events, ['cause', 'initiatedEventId', DTC])).toBe(`${HEAD} / 5 RequestCancelExternalWorkflowExecutionInitiated ${DTC}=4`
      + ` / 6 RequestCancelExternalWorkflowExecutionFailed cause=UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION,initiatedEventId=5,${DTC}=4 / 7 DecisionTaskScheduled`);
    expect(attributesOf(events[5]!)).toEqual({ ...target, cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION', initiatedEventId: 5, decisionTaskCompletedEventId: 4 });
  });
});

// ---- history limit ---------------------------------------------------------------------------

describe('history limit', () => {
  const LIMIT = 25_000;
  const markers = (n: number) => Array.from({ length: n }, (_, i) => D.marker(`m${i}`));

  /** The last `n` events, newest first. */
  async function tail(run: Run, n: number): Promise<WireEvent[]> {
    const page = await call('GetWorkflowExecutionHistory', { execution: run.execution, reverseOrder: true, maximumPageSize: n });
    return page.events;
  }

  /**
   * Brings a run to 24,002 events with a decision task scheduled: 24 decisions of
   * DecisionTaskStarted, DecisionTaskCompleted, 996 markers, CancelTimerFailed, DecisionTaskScheduled.
   */
  async function fill(run: Run): Promise<void> {
    for (let i = 0; i < 24; i++) await run.decide([...markers(996), D.nudge()]);
  }

  it('terminates a run at 25,000 events with WorkflowExecutionTerminated (EVENT_LIMIT_EXCEEDED) as event 25,000', async () => {
    const [a, b] = [await start(), await start()];
    await Promise.all([fill(a), fill(b)]);
    for (const run of [a, b]) {
      const t = await tail(run, 1);
      expect(t[0]).toMatchObject({ eventId: 24_002, eventType: 'DecisionTaskScheduled' });
    }

    // a: 24,003 DecisionTaskStarted, 24,004-24,998 (DTC, 992 markers, CancelTimerFailed, DTS), 24,999 DecisionTaskStarted.
    await a.decide([...markers(992), D.nudge()]);
    const last = await a.poll();
    expect(last.startedEventId).toBe(LIMIT - 1);
    // One more batch cannot fit: the run is terminated in the last slot instead.
    await expect(a.respond(last.taskToken, [D.marker('one-too-many')])).rejects.toMatchObject(UNKNOWN);
    let t = await tail(a, 3);
    expect(t.map((x) => `${x.eventId} ${x.eventType}`)).toEqual([`${LIMIT} WorkflowExecutionTerminated`, `${LIMIT - 1} DecisionTaskStarted`, `${LIMIT - 2} DecisionTaskScheduled`]);
    expect(attributesOf(t[0]!)).toEqual({ childPolicy: 'TERMINATE', cause: 'EVENT_LIMIT_EXCEEDED' });
    expect((await a.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
    expect((await a.history()).length).toBe(LIMIT);

    // b: 24,003 DecisionTaskStarted, 24,004-24,998 (DTC, 994 markers): no decision task open.
    await b.decide(markers(994));
    expect((await b.describe()).openCounts).toMatchObject({ openDecisionTasks: 0 });
    // A signal fits as event 24,999; the decision task it calls for would be event 25,000, so the termination takes that slot.
    await call('SignalWorkflowExecution', { workflowId: b.workflowId, signalName: 'last-straw' });
    t = await tail(b, 3);
    expect(t.map((x) => `${x.eventId} ${x.eventType}`)).toEqual([`${LIMIT} WorkflowExecutionTerminated`, `${LIMIT - 1} WorkflowExecutionSignaled`, `${LIMIT - 2} MarkerRecorded`]);
    expect(attributesOf(t[0]!)).toEqual({ childPolicy: 'TERMINATE', cause: 'EVENT_LIMIT_EXCEEDED' });
    expect((await b.describe()).executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
    await expect(call('SignalWorkflowExecution', { workflowId: b.workflowId, signalName: 'too-late' })).rejects.toMatchObject(UNKNOWN);
    expect((await tail(b, 1))[0]!.eventId).toBe(LIMIT);
  }, 40_000);
});
