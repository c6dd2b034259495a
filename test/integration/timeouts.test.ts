import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { compact, startTestEngine, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { manualRuns, ACTIVITIES, DECISIONS, POLL, UNKNOWN, type ActivityTimeouts, type Run } from '../helpers/manual-runs.js';

/**
 * The six SWF timeouts on a real nats-server in real time (durations are whole seconds, so the
 * tests use "1"/"2"). The tests run concurrently: each waits on its own timers, so the file takes
 * about as long as its slowest test.
 */

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

const { start, pollDecision, pollActivity, scheduleActivity, history } = manualRuns(() => e.client, 'timeouts');


/** Starts a run and has the decider schedule one activity (events 1–5; 5 is ActivityTaskScheduled). */
async function startWithActivity(label: string, t: ActivityTimeouts): Promise<Run> {
  const run = await start(label);
  await scheduleActivity(run, t);
  return run;
}


/** Waits until the history holds an event of `type`; returns the whole history. */
async function waitForEvent(run: Run, type: string, timeoutMs = 8000): Promise<WireEvent[]> {
  let events: WireEvent[] = [];
  await until(async () => {
    events = await history(run);
    return events.some((x) => x.eventType === type);
  }, { timeoutMs, intervalMs: 50, message: `${type} in ${run.execution.workflowId}` });
  return events;
}

const byType = (events: WireEvent[], type: string): WireEvent => {
  const found = events.find((x) => x.eventType === type);
  if (!found) throw new Error(`no ${type} in ${compact(events)}`);
  return found;
};
const byId = (events: WireEvent[], id: number): WireEvent => events[id - 1]!;

/** The event came due at `deadline` (epoch seconds): not before it, and at most 1 s after. */
function expectFiredAt(expect: ExpectStatic, event: WireEvent, deadline: number): void {
  const at = Math.round(event.eventTimestamp * 1000);
  const due = Math.round(deadline * 1000);
  expect(at, `${event.eventType} at ${at}, due ${due}`).toBeGreaterThanOrEqual(due);
  expect(at - due, `${event.eventType} late by ${at - due} ms`).toBeLessThanOrEqual(1000);
}

/** The timeout event and the follow-up DecisionTaskScheduled belong to one transition. */
function expectFollowUpDecision(expect: ExpectStatic, events: WireEvent[], timedOut: WireEvent): void {
  const next = byId(events, timedOut.eventId + 1);
  expect(next?.eventType).toBe('DecisionTaskScheduled');
  expect(next.eventTimestamp).toBe(timedOut.eventTimestamp);
  expect(attributesOf(next).taskList).toEqual(DECISIONS);
}

const SHOWN = ['timeoutType', 'scheduledEventId', 'startedEventId'];

describe.concurrent('SWF timeouts on a live engine', () => {
  it('workflow START_TO_CLOSE closes the run as TIMED_OUT and kills the open decision token', async ({ expect }) => {
    const run = await start('wf-s2c', { executionStartToCloseTimeout: '1', taskStartToCloseTimeout: '10' });
    const held = await pollDecision(run);
    const events = await waitForEvent(run, 'WorkflowExecutionTimedOut');
    expect(compact(events, ['timeoutType', 'childPolicy'])).toBe(
      '1 WorkflowExecutionStarted childPolicy=TERMINATE / 2 DecisionTaskScheduled / 3 DecisionTaskStarted'
      + ' / 4 WorkflowExecutionTimedOut timeoutType=START_TO_CLOSE,childPolicy=TERMINATE',
    );
    expectFiredAt(expect, byId(events, 4), byId(events, 1).eventTimestamp + 1);
    const d = await e.client.call('DescribeWorkflowExecution', { domain: run.domain, execution: run.execution });
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TIMED_OUT' });
    expect(d.openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 0 });
    await expect(e.client.call('RespondDecisionTaskCompleted', {
      taskToken: held.taskToken, decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: {} }],
    })).rejects.toMatchObject(UNKNOWN);
    expect((await history(run)).length).toBe(4);
  });

  it('decision START_TO_CLOSE times out the task, schedules a new one and refuses the old token', async ({ expect }) => {
    const run = await start('dt-s2c', { taskStartToCloseTimeout: '1' });
    const first = await pollDecision(run);
    expect(first.startedEventId).toBe(3);
    const events = await waitForEvent(run, 'DecisionTaskTimedOut');
    expect(compact(events, SHOWN)).toBe(
      '1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted scheduledEventId=2'
      + ' / 4 DecisionTaskTimedOut timeoutType=START_TO_CLOSE,scheduledEventId=2,startedEventId=3 / 5 DecisionTaskScheduled',
    );
    expectFollowUpDecision(expect, events, byId(events, 4));
    expectFiredAt(expect, byId(events, 4), byId(events, 3).eventTimestamp + 1);
    const complete = [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'done' } }];
    await expect(e.client.call('RespondDecisionTaskCompleted', { taskToken: first.taskToken, decisions: complete }))
      .rejects.toMatchObject(UNKNOWN);
    // The new task (with its own 1 s budget) is handed out and can close the run.
    const second = await pollDecision(run);
    expect(second.startedEventId).toBe(6);
    // previousStartedEventId names the last task the decider *processed*; the timed-out one was not.
    expect(second.previousStartedEventId).toBe(0);
    expect(second.events.map((x: WireEvent) => x.eventType).slice(-3)).toEqual(['DecisionTaskTimedOut', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    await e.client.call('RespondDecisionTaskCompleted', { taskToken: second.taskToken, decisions: complete });
    const d = await e.client.call('DescribeWorkflowExecution', { domain: run.domain, execution: run.execution });
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });
  });

  it('activity SCHEDULE_TO_START: the unstarted task dies and is never handed out', async ({ expect }) => {
    const run = await startWithActivity('at-s2s', { scheduleToStartTimeout: '1', startToCloseTimeout: '10', scheduleToCloseTimeout: '10', heartbeatTimeout: 'NONE' });
    const events = await waitForEvent(run, 'ActivityTaskTimedOut');
    expect(compact(events, SHOWN)).toBe(
      '1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted scheduledEventId=2'
      + ' / 4 DecisionTaskCompleted scheduledEventId=2,startedEventId=3 / 5 ActivityTaskScheduled'
      + ' / 6 ActivityTaskTimedOut timeoutType=SCHEDULE_TO_START,scheduledEventId=5,startedEventId=0 / 7 DecisionTaskScheduled',
    );
    expectFollowUpDecision(expect, events, byId(events, 6));
    expectFiredAt(expect, byId(events, 6), byId(events, 5).eventTimestamp + 1);
    const late = await e.client.call('PollForActivityTask', { domain: run.domain, taskList: ACTIVITIES, identity: 'late', ...POLL });
    expect(late.taskToken).toBeUndefined();
    expect(late.startedEventId).toBe(0);
    expect((await e.client.call('CountPendingActivityTasks', { domain: run.domain, taskList: ACTIVITIES })).count).toBe(0);
    expect((await history(run)).length).toBe(7);
  });

  it('activity START_TO_CLOSE: a silent worker times out and its token is dead', async ({ expect }) => {
    const run = await startWithActivity('at-s2c', { scheduleToStartTimeout: '10', startToCloseTimeout: '1', scheduleToCloseTimeout: '10', heartbeatTimeout: 'NONE' });
    const task = await pollActivity(run);
    expect(task.activityId).toBe('a1');
    const events = await waitForEvent(run, 'ActivityTaskTimedOut');
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskTimedOut timeoutType=START_TO_CLOSE,scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    expectFollowUpDecision(expect, events, byId(events, 7));
    expectFiredAt(expect, byId(events, 7), byId(events, 6).eventTimestamp + 1);
    await expect(e.client.call('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'late' })).rejects.toMatchObject(UNKNOWN);
    await expect(e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken, details: 'late' })).rejects.toMatchObject(UNKNOWN);
    await expect(e.client.call('RespondActivityTaskFailed', { taskToken: task.taskToken, reason: 'late' })).rejects.toMatchObject(UNKNOWN);
    expect((await history(run)).length).toBe(8);
  });

  it('activity SCHEDULE_TO_CLOSE: the total budget runs out while the task is started', async ({ expect }) => {
    const run = await startWithActivity('at-sc', { scheduleToStartTimeout: '10', startToCloseTimeout: '10', scheduleToCloseTimeout: '2', heartbeatTimeout: 'NONE' });
    const task = await pollActivity(run);
    const events = await waitForEvent(run, 'ActivityTaskTimedOut');
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskTimedOut timeoutType=SCHEDULE_TO_CLOSE,scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    expectFollowUpDecision(expect, events, byId(events, 7));
    expectFiredAt(expect, byId(events, 7), byId(events, 5).eventTimestamp + 2);
    await expect(e.client.call('RespondActivityTaskCompleted', { taskToken: task.taskToken })).rejects.toMatchObject(UNKNOWN);
  });

  it('activity HEARTBEAT: a worker that stops heartbeating times out with its last details', async ({ expect }) => {
    const run = await startWithActivity('at-hb', { scheduleToStartTimeout: '10', startToCloseTimeout: '10', scheduleToCloseTimeout: '10', heartbeatTimeout: '1' });
    const task = await pollActivity(run);
    await new Promise((r) => setTimeout(r, 300)); // beat partway into the first heartbeat window
    const before = Date.now();
    expect(await e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken, details: 'half done' })).toEqual({ cancelRequested: false });
    const after = Date.now();
    const events = await waitForEvent(run, 'ActivityTaskTimedOut');
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskTimedOut timeoutType=HEARTBEAT,scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    const timedOut = byId(events, 7);
    expect(attributesOf(timedOut).details).toBe('half done');
    expectFollowUpDecision(expect, events, timedOut);
    // Due 1 s after the heartbeat (which moved the deadline), not 1 s after the start.
    const at = Math.round(timedOut.eventTimestamp * 1000);
    expect(at).toBeGreaterThanOrEqual(before + 1000);
    expect(at).toBeLessThanOrEqual(after + 2000);
    expect(at).toBeGreaterThan(Math.round(byId(events, 6).eventTimestamp * 1000) + 1000);
    await expect(e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken })).rejects.toMatchObject(UNKNOWN);
  });

  it('a worker that heartbeats in time outlives its heartbeat timeout and completes', async ({ expect }) => {
    const run = await startWithActivity('at-alive', { scheduleToStartTimeout: '10', startToCloseTimeout: '10', scheduleToCloseTimeout: '10', heartbeatTimeout: '1' });
    const task = await pollActivity(run);
    const t0 = Date.now();
    let beats = 0;
    while (Date.now() - t0 < 2500) {
      await new Promise((r) => setTimeout(r, 400));
      await e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken, details: `beat ${++beats}` });
    }
    expect(beats).toBeGreaterThanOrEqual(5);
    await e.client.call('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'ok' });
    const events = await history(run);
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskCompleted scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    expect(attributesOf(byId(events, 7)).result).toBe('ok');
    expect(events.some((x) => x.eventType === 'ActivityTaskTimedOut')).toBe(false);
  });
});
