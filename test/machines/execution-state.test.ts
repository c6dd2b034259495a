import { describe, expect, it } from 'vitest';
import {
  CLOSE_EVENTS, DECISION_TRIGGERS, foldEvent, foldHistory, initialExecutionState, type ExecutionState,
} from '../../machines/swf/execution-state.js';
import { EVENT_TYPES, type EventType, type HistoryEvent } from '../../machines/swf/history-event.js';
import { T0, orderFulfilmentHistory } from './helpers.js';

const history = orderFulfilmentHistory(T0);
const upTo = (id: number) => foldHistory(history.filter((e) => e.id <= id));

/** Attributes that let any event type fold without referring to a missing field. */
const anyAttrs = { taskList: { name: 'tl' }, scheduledEventId: 9999, startedEventId: 9998, activityId: 'nope', timerId: 'nope' };
const e = (type: EventType, id: number, at: number, attrs: Record<string, unknown> = {}): HistoryEvent => ({ type, id, at, attrs });

/** A started execution whose first decision task is completed: nothing pending. */
const quiet = (): ExecutionState => upTo(4);

describe('execution state fold', () => {
  it('initialExecutionState is empty and fresh on every call', () => {
    const a = initialExecutionState();
    expect(a).toEqual({
      lastEventId: 0, startedAt: 0, closedAt: null, closeStatus: null, started: {}, decisionTaskList: '',
      decisionScheduleToStart: null, decisionTaskListRevert: null, decision: null, needsDecision: false, previousStartedEventId: 0, activities: {}, timers: {},
      children: {}, externals: {}, cancelRequested: false, latestActivityTaskTimestamp: null, latestExecutionContext: null,
    });
    a.activities.x = { activityId: 'x', scheduledEventId: 1, startedEventId: null, cancelRequested: false };
    expect(initialExecutionState().activities).toEqual({});
  });

  describe('order-fulfilment sequence', () => {
    it('1 WorkflowExecutionStarted: start time, attributes, task list, first decision needed', () => {
      const s = upTo(1);
      expect(s.lastEventId).toBe(1);
      expect(s.startedAt).toBe(T0);
      expect(s.started).toBe(history[0].attrs);
      expect(s.decisionTaskList).toBe('orders');
      expect(s.needsDecision).toBe(true);
      expect(s.decision).toBeNull();
      expect(s.closeStatus).toBeNull();
    });

    it('2 DecisionTaskScheduled: an open decision task, still needing a decision', () => {
      const s = upTo(2);
      expect(s.decision).toEqual({ scheduledEventId: 2, startedEventId: null });
      expect(s.needsDecision).toBe(true);
    });

    it('3 DecisionTaskStarted: the started task sees every pending trigger', () => {
      const s = upTo(3);
      expect(s.decision).toEqual({ scheduledEventId: 2, startedEventId: 3 });
      expect(s.needsDecision).toBe(false);
      expect(s.previousStartedEventId).toBe(0);
    });

    it('4 DecisionTaskCompleted: closes the decision, records previousStartedEventId and the execution context', () => {
      const s = upTo(4);
      expect(s.decision).toBeNull();
      expect(s.needsDecision).toBe(false);
      expect(s.previousStartedEventId).toBe(3);
      expect(s.latestExecutionContext).toBe('step=charge');
      expect(s.decisionTaskList).toBe('orders');
    });

    it('5 ActivityTaskScheduled: an open activity; latestActivityTaskTimestamp is the scheduling time', () => {
      const s = upTo(5);
      expect(s.activities).toEqual({
        'charge-card': { activityId: 'charge-card', scheduledEventId: 5, startedEventId: null, cancelRequested: false },
      });
      expect(s.latestActivityTaskTimestamp).toBe(T0 + 200);
      expect(s.needsDecision).toBe(false);
    });

    it('6 ActivityTaskStarted: the activity records its started event; no decision needed', () => {
      const s = upTo(6);
      expect(s.activities['charge-card']).toEqual({ activityId: 'charge-card', scheduledEventId: 5, startedEventId: 6, cancelRequested: false });
      // SWF: "the time when the last activity task was scheduled" — starting does not move it.
      expect(s.latestActivityTaskTimestamp).toBe(T0 + 200);
      expect(s.needsDecision).toBe(false);
    });

    it('7 ActivityTaskCompleted: the activity is closed and a decision is needed', () => {
      const s = upTo(7);
      expect(s.activities).toEqual({});
      expect(s.needsDecision).toBe(true);
      expect(s.decision).toBeNull();
    });

    it('8–10 the second decision: scheduled, started (clears needsDecision), completed', () => {
      expect(upTo(8).decision).toEqual({ scheduledEventId: 8, startedEventId: null });
      expect(upTo(8).needsDecision).toBe(true);
      expect(upTo(9).decision).toEqual({ scheduledEventId: 8, startedEventId: 9 });
      expect(upTo(9).needsDecision).toBe(false);
      const s = upTo(10);
      expect(s.decision).toBeNull();
      expect(s.previousStartedEventId).toBe(9);
      expect(s.latestExecutionContext).toBe('step=ship');
      expect(s.needsDecision).toBe(false);
    });

    it('11–13 the shipping activity and timer', () => {
      const s12 = upTo(12);
      expect(s12.activities).toEqual({
        'ship-order': { activityId: 'ship-order', scheduledEventId: 11, startedEventId: null, cancelRequested: false },
      });
      expect(s12.timers).toEqual({ 'ship-deadline': 12 });
      expect(s12.latestActivityTaskTimestamp).toBe(T0 + 3_200);
      const s13 = upTo(13);
      expect(s13.activities['ship-order'].startedEventId).toBe(13);
      expect(s13.latestActivityTaskTimestamp).toBe(T0 + 3_200);
      expect(s13.needsDecision).toBe(false);
    });

    it('14–17 activity completes, third decision; a completion without executionContext keeps the latest one', () => {
      expect(upTo(14).activities).toEqual({});
      expect(upTo(14).needsDecision).toBe(true);
      expect(upTo(14).timers).toEqual({ 'ship-deadline': 12 });
      expect(upTo(16).needsDecision).toBe(false);
      const s = upTo(17);
      expect(s.decision).toBeNull();
      expect(s.previousStartedEventId).toBe(16);
      expect(s.latestExecutionContext).toBe('step=ship');
    });

    it('18 TimerCanceled removes the timer and triggers no decision', () => {
      const s = upTo(18);
      expect(s.timers).toEqual({});
      expect(s.needsDecision).toBe(false);
    });

    it('19 WorkflowExecutionCompleted closes the execution', () => {
      const s = foldHistory(history);
      expect(s).toEqual({
        lastEventId: 19,
        startedAt: T0,
        closedAt: T0 + 9_200,
        closeStatus: 'COMPLETED',
        started: history[0].attrs,
        decisionTaskList: 'orders',
        decisionScheduleToStart: null,
        decisionTaskListRevert: null,
        decision: null,
        needsDecision: false,
        previousStartedEventId: 16,
        activities: {},
        timers: {},
        children: {},
        externals: {},
        cancelRequested: false,
        latestActivityTaskTimestamp: T0 + 3_200,
        latestExecutionContext: 'step=ship',
      });
    });

    it('lastEventId follows every event', () => {
      let s = initialExecutionState();
      for (const ev of history) {
        s = foldEvent(s, ev);
        expect(s.lastEventId).toBe(ev.id);
      }
    });
  });

  describe('needsDecision across a started decision task', () => {
    it.each([
      ['WorkflowExecutionSignaled', { signalName: 'rush', input: 'now' }],
      ['ActivityTaskCompleted', { scheduledEventId: 5, startedEventId: 6, result: 'ok' }],
      ['TimerFired', { timerId: 't', startedEventId: 5 }],
    ] as const)('%s while the decision task is started keeps needsDecision true after DecisionTaskCompleted', (type, attrs) => {
      let s = foldHistory([
        e('WorkflowExecutionStarted', 1, T0, { taskList: { name: 'orders' } }),
        e('DecisionTaskScheduled', 2, T0),
        e('DecisionTaskStarted', 3, T0 + 10, { scheduledEventId: 2 }),
      ]);
      // An activity/timer the trigger can refer to.
      s = { ...s, activities: { a: { activityId: 'a', scheduledEventId: 5, startedEventId: 6, cancelRequested: false } }, timers: { t: 5 } };
      expect(s.needsDecision).toBe(false);
      s = foldEvent(s, e(type, 4, T0 + 20, attrs));
      expect(s.needsDecision).toBe(true);
      expect(s.decision).toEqual({ scheduledEventId: 2, startedEventId: 3 });
      s = foldEvent(s, e('DecisionTaskCompleted', 5, T0 + 30, { scheduledEventId: 2, startedEventId: 3 }));
      expect(s.decision).toBeNull();
      expect(s.needsDecision).toBe(true);
      expect(s.previousStartedEventId).toBe(3);
      s = foldEvent(s, e('DecisionTaskScheduled', 6, T0 + 30));
      expect(s.needsDecision).toBe(true);
      s = foldEvent(s, e('DecisionTaskStarted', 7, T0 + 40, { scheduledEventId: 6 }));
      expect(s.needsDecision).toBe(false);
      expect(s.decision).toEqual({ scheduledEventId: 6, startedEventId: 7 });
    });

    it('a trigger while the decision task is only scheduled is seen by that task once it starts', () => {
      let s = foldHistory(history.slice(0, 2));
      s = foldEvent(s, e('WorkflowExecutionSignaled', 3, T0 + 5, { signalName: 's' }));
      expect(s.needsDecision).toBe(true);
      s = foldEvent(s, e('DecisionTaskStarted', 4, T0 + 10, { scheduledEventId: 2 }));
      expect(s.needsDecision).toBe(false);
      s = foldEvent(s, e('DecisionTaskCompleted', 5, T0 + 20, { scheduledEventId: 2, startedEventId: 4 }));
      expect(s.needsDecision).toBe(false);
    });

    it('DecisionTaskTimedOut closes the decision task and needs a new one', () => {
      let s = upTo(3);
      s = foldEvent(s, e('DecisionTaskTimedOut', 4, T0 + 30_100, { scheduledEventId: 2, startedEventId: 3, timeoutType: 'START_TO_CLOSE' }));
      expect(s.decision).toBeNull();
      expect(s.needsDecision).toBe(true);
      expect(s.previousStartedEventId).toBe(0);
    });
  });

  describe('children and external requests', () => {
    it('tracks a child from its initiation through its start to its close', () => {
      let s = quiet();
      s = foldEvent(s, e('StartChildWorkflowExecutionInitiated', 5, T0 + 1_000, { workflowId: 'kid', workflowType: { name: 'k', version: '1' } }));
      expect(s.children[5]).toEqual({ initiatedEventId: 5, workflowId: 'kid', runId: null, startedEventId: 0 });
      s = foldEvent(s, e('ChildWorkflowExecutionStarted', 6, T0 + 1_100, { initiatedEventId: 5, workflowExecution: { workflowId: 'kid', runId: 'r1' } }));
      expect(s.children[5]).toEqual({ initiatedEventId: 5, workflowId: 'kid', runId: 'r1', startedEventId: 6 });
      s = foldEvent(s, e('ChildWorkflowExecutionCompleted', 7, T0 + 1_200, { initiatedEventId: 5, startedEventId: 6 }));
      expect(s.children).toEqual({});
    });

    it('drops a child that failed to start', () => {
      let s = foldEvent(quiet(), e('StartChildWorkflowExecutionInitiated', 5, T0, { workflowId: 'kid' }));
      s = foldEvent(s, e('StartChildWorkflowExecutionFailed', 6, T0, { initiatedEventId: 5, cause: 'WORKFLOW_ALREADY_RUNNING' }));
      expect(s.children).toEqual({});
    });

    it('keeps external signals and cancel requests pending until they are answered', () => {
      let s = foldEvent(quiet(), e('SignalExternalWorkflowExecutionInitiated', 5, T0, { workflowId: 'o', signalName: 'go' }));
      s = foldEvent(s, e('RequestCancelExternalWorkflowExecutionInitiated', 6, T0, { workflowId: 'o' }));
      expect(s.externals).toEqual({ 5: { initiatedEventId: 5, kind: 'signal' }, 6: { initiatedEventId: 6, kind: 'cancel' } });
      s = foldEvent(s, e('ExternalWorkflowExecutionSignaled', 7, T0, { initiatedEventId: 5 }));
      s = foldEvent(s, e('RequestCancelExternalWorkflowExecutionFailed', 8, T0, { initiatedEventId: 6, cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION' }));
      expect(s.externals).toEqual({});
    });
  });

  describe('decision triggers', () => {
    it.each([...DECISION_TRIGGERS])('%s sets needsDecision', (type) => {
      const before = quiet();
      expect(before.needsDecision).toBe(false);
      expect(foldEvent(before, e(type, 5, T0 + 1_000, anyAttrs)).needsDecision).toBe(true);
    });

    it.each(EVENT_TYPES.filter((t) => !DECISION_TRIGGERS.has(t)))('%s does not set needsDecision', (type) => {
      expect(foldEvent(quiet(), e(type, 5, T0 + 1_000, anyAttrs)).needsDecision).toBe(false);
    });

    it('the trigger set holds SWF decision triggers and none of the bookkeeping events', () => {
      for (const t of ['WorkflowExecutionStarted', 'WorkflowExecutionSignaled', 'ActivityTaskCompleted', 'ActivityTaskFailed',
        'ActivityTaskTimedOut', 'ActivityTaskCanceled', 'TimerFired', 'DecisionTaskTimedOut', 'WorkflowExecutionCancelRequested'] as const) {
        expect(DECISION_TRIGGERS.has(t)).toBe(true);
      }
      for (const t of ['DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'ActivityTaskScheduled',
        'ActivityTaskStarted', 'ActivityTaskCancelRequested', 'TimerStarted', 'TimerCanceled', 'MarkerRecorded'] as const) {
        expect(DECISION_TRIGGERS.has(t)).toBe(false);
      }
      for (const t of DECISION_TRIGGERS) expect(EVENT_TYPES).toContain(t);
    });
  });

  describe('close events', () => {
    it.each(Object.entries(CLOSE_EVENTS))('%s sets closeStatus %s, closedAt and clears the decision', (type, status) => {
      const before = upTo(13); // an open activity and a timer
      const withDecision = foldEvent(foldEvent(before, e('DecisionTaskScheduled', 14, T0 + 5_000)), e('DecisionTaskStarted', 15, T0 + 5_100, { scheduledEventId: 14 }));
      const s = foldEvent(withDecision, e(type as EventType, 16, T0 + 6_000, { reason: 'r', timeoutType: 'START_TO_CLOSE' }));
      expect(s.closeStatus).toBe(status);
      expect(s.closedAt).toBe(T0 + 6_000);
      expect(s.decision).toBeNull();
      expect(s.lastEventId).toBe(16);
      // Close events are pure bookkeeping of the close; open tasks stay recorded.
      expect(s.activities).toEqual(before.activities);
      expect(s.timers).toEqual(before.timers);
      expect(s.needsDecision).toBe(false);
    });

    it('maps exactly the six SWF close events', () => {
      expect(CLOSE_EVENTS).toEqual({
        WorkflowExecutionCompleted: 'COMPLETED',
        WorkflowExecutionFailed: 'FAILED',
        WorkflowExecutionCanceled: 'CANCELED',
        WorkflowExecutionTerminated: 'TERMINATED',
        WorkflowExecutionContinuedAsNew: 'CONTINUED_AS_NEW',
        WorkflowExecutionTimedOut: 'TIMED_OUT',
      });
    });
  });

  describe('individual events', () => {
    it('WorkflowExecutionCancelRequested sets cancelRequested and needs a decision', () => {
      const s = foldEvent(quiet(), e('WorkflowExecutionCancelRequested', 5, T0 + 1_000, { cause: 'CHILD_POLICY_APPLIED' }));
      expect(s.cancelRequested).toBe(true);
      expect(s.needsDecision).toBe(true);
    });

    it('DecisionTaskCompleted with a taskList redirects the next decision task', () => {
      const s = foldEvent(upTo(3), e('DecisionTaskCompleted', 4, T0 + 200, {
        scheduledEventId: 2, startedEventId: 3, taskList: { name: 'orders-priority' }, taskListScheduleToStartTimeout: '60',
      }));
      expect(s.decisionTaskList).toBe('orders-priority');
      expect(s.latestExecutionContext).toBeNull();
    });

    describe('taskListScheduleToStartTimeout: a temporary redirect', () => {
      const dtc = (id: number, attrs: Record<string, unknown>) =>
        e('DecisionTaskCompleted', id, T0 + 200, { scheduledEventId: id - 2, startedEventId: id - 1, ...attrs });
      const redirected = () => foldEvent(upTo(3), dtc(4, { taskList: { name: 'orders-priority' }, taskListScheduleToStartTimeout: '60' }));

      it('records the timeout for the decision tasks on the new list and the list to revert to', () => {
        const s = redirected();
        expect(s).toMatchObject({ decisionTaskList: 'orders-priority', decisionScheduleToStart: '60', decisionTaskListRevert: 'orders' });
      });

      // AWS reverts on either timeout of a task on the override list.
      it.each(['SCHEDULE_TO_START', 'START_TO_CLOSE'])('a decision task timed out (%s) reverts to the original list and drops the timeout', (timeoutType) => {
        let s = foldEvent(redirected(), e('DecisionTaskScheduled', 5, T0 + 300, { taskList: { name: 'orders-priority' }, scheduleToStartTimeout: '60' }));
        s = foldEvent(s, e('DecisionTaskTimedOut', 6, T0 + 60_300, { timeoutType, scheduledEventId: 5, startedEventId: 0 }));
        expect(s).toMatchObject({ decisionTaskList: 'orders', decisionScheduleToStart: null, decisionTaskListRevert: null, decision: null, needsDecision: true });
      });

      it('a second temporary redirect still reverts to the first, permanent list', () => {
        let s = foldEvent(redirected(), e('DecisionTaskScheduled', 5, T0 + 300, { taskList: { name: 'orders-priority' } }));
        s = foldEvent(s, e('DecisionTaskStarted', 6, T0 + 400, { scheduledEventId: 5 }));
        s = foldEvent(s, dtc(7, { taskList: { name: 'orders-urgent' }, taskListScheduleToStartTimeout: '5' }));
        expect(s).toMatchObject({ decisionTaskList: 'orders-urgent', decisionScheduleToStart: '5', decisionTaskListRevert: 'orders' });
      });

      it.each([{}, { taskListScheduleToStartTimeout: 'NONE' }])('a taskList without a timeout (%o) is a permanent redirect', (extra) => {
        const s = foldEvent(redirected(), e('DecisionTaskScheduled', 5, T0 + 300, { taskList: { name: 'orders-priority' } }));
        const t = foldEvent(foldEvent(s, e('DecisionTaskStarted', 6, T0 + 400, { scheduledEventId: 5 })),
          dtc(7, { taskList: { name: 'orders-bulk' }, ...extra }));
        expect(t).toMatchObject({ decisionTaskList: 'orders-bulk', decisionScheduleToStart: null, decisionTaskListRevert: null });
        const u = foldEvent(t, e('DecisionTaskTimedOut', 8, T0 + 500, { timeoutType: 'START_TO_CLOSE', scheduledEventId: 9, startedEventId: 10 }));
        expect(u.decisionTaskList).toBe('orders-bulk');
      });
    });

    it('ActivityTaskCancelRequested flags the activity by activityId; unknown ids are ignored', () => {
      const s = foldEvent(upTo(6), e('ActivityTaskCancelRequested', 7, T0 + 2_000, { activityId: 'charge-card', decisionTaskCompletedEventId: 4 }));
      expect(s.activities['charge-card'].cancelRequested).toBe(true);
      expect(s.activities['charge-card'].startedEventId).toBe(6);
      expect(s.needsDecision).toBe(false);
      const u = foldEvent(upTo(6), e('ActivityTaskCancelRequested', 7, T0 + 2_000, { activityId: 'unknown' }));
      expect(u.activities).toEqual(upTo(6).activities);
    });

    it.each(['ActivityTaskFailed', 'ActivityTaskTimedOut', 'ActivityTaskCanceled'] as const)(
      '%s removes the activity found by scheduledEventId',
      (type) => {
        let s = foldEvent(upTo(6), e('ActivityTaskScheduled', 7, T0 + 1_500, { activityId: 'other' }));
        s = foldEvent(s, e(type, 8, T0 + 2_000, { scheduledEventId: 5, startedEventId: 6, timeoutType: 'HEARTBEAT' }));
        expect(Object.keys(s.activities)).toEqual(['other']);
        expect(s.needsDecision).toBe(true);
      },
    );

    it('ActivityTaskStarted for an unknown scheduledEventId leaves the activities alone', () => {
      const before = upTo(5);
      const s = foldEvent(before, e('ActivityTaskStarted', 6, T0 + 1_000, { scheduledEventId: 42 }));
      expect(s.activities).toEqual(before.activities);
    });

    it('an activity id reused after the first one closed is tracked under the new scheduled event', () => {
      let s = upTo(7);
      s = foldEvent(s, e('ActivityTaskScheduled', 8, T0 + 4_000, { activityId: 'charge-card' }));
      expect(s.activities['charge-card'].scheduledEventId).toBe(8);
      s = foldEvent(s, e('ActivityTaskStarted', 9, T0 + 4_100, { scheduledEventId: 8 }));
      expect(s.activities['charge-card'].startedEventId).toBe(9);
      expect(s.latestActivityTaskTimestamp).toBe(T0 + 4_000);
    });

    it('TimerStarted / TimerFired track timers by timerId', () => {
      let s = foldEvent(quiet(), e('TimerStarted', 5, T0 + 300, { timerId: 'a', startToFireTimeout: '5' }));
      s = foldEvent(s, e('TimerStarted', 6, T0 + 300, { timerId: 'b', startToFireTimeout: '9' }));
      expect(s.timers).toEqual({ a: 5, b: 6 });
      expect(s.needsDecision).toBe(false);
      s = foldEvent(s, e('TimerFired', 7, T0 + 5_300, { timerId: 'a', startedEventId: 5 }));
      expect(s.timers).toEqual({ b: 6 });
      expect(s.needsDecision).toBe(true);
    });

    it('events the fold does not track only move lastEventId', () => {
      const before = quiet();
      const s = foldEvent(before, e('MarkerRecorded', 5, T0 + 300, { markerName: 'm', details: 'd' }));
      expect(s).toEqual({ ...before, lastEventId: 5 });
    });
  });

  describe('purity', () => {
    it('foldEvent never mutates its input', () => {
      let s = initialExecutionState();
      for (const ev of history) {
        const snapshot = structuredClone(s);
        const next = foldEvent(s, ev);
        expect(s).toEqual(snapshot);
        expect(next).not.toBe(s);
        s = next;
      }
    });

    it('foldHistory(b, foldHistory(a)) equals foldHistory(a ++ b)', () => {
      const a = history.slice(0, 9);
      const b = history.slice(9);
      expect(foldHistory(b, foldHistory(a))).toEqual(foldHistory(history));
    });

    it('foldHistory of no events is the initial state (or the given state)', () => {
      expect(foldHistory([])).toEqual(initialExecutionState());
      const s = upTo(7);
      expect(foldHistory([], s)).toBe(s);
    });
  });
});
