import { describe, expect, it } from 'vitest';
import { activity, activityResult, decisions, newEvents, signalsReceived, timersFired, workflowInput, type WireEvent } from '../../src/index.js';

let nextId = 1;
const ev = (eventType: string, attrs: object = {}): WireEvent =>
  ({ eventId: nextId++, eventType, eventTimestamp: 1, [`${eventType[0]!.toLowerCase()}${eventType.slice(1)}EventAttributes`]: attrs });

describe('decision builders', () => {
  it('build the AWS shapes, timeouts given as numbers becoming strings', () => {
    expect(decisions.scheduleActivity({ activityId: 'a1', activityType: { name: 'T', version: '1' }, input: 'x', startToCloseTimeout: 30, heartbeatTimeout: 'NONE' }))
      .toEqual({ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityId: 'a1', activityType: { name: 'T', version: '1' }, input: 'x', startToCloseTimeout: '30', heartbeatTimeout: 'NONE' } });
    expect(decisions.startTimer('t1', 2_592_000)).toEqual({ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: '2592000' } });
    expect(decisions.cancelTimer('t1')).toEqual({ decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId: 't1' } });
    expect(decisions.completeWorkflow('r')).toEqual({ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'r' } });
    expect(decisions.failWorkflow('why', 'd')).toEqual({ decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: 'why', details: 'd' } });
    expect(decisions.cancelWorkflow()).toEqual({ decisionType: 'CancelWorkflowExecution', cancelWorkflowExecutionDecisionAttributes: {} });
    expect(decisions.recordMarker('m', 'd')).toEqual({ decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: 'm', details: 'd' } });
    expect(decisions.requestCancelActivity('a1')).toEqual({ decisionType: 'RequestCancelActivityTask', requestCancelActivityTaskDecisionAttributes: { activityId: 'a1' } });
    expect(decisions.signalExternal({ workflowId: 'w', signalName: 's', input: 'i' }))
      .toEqual({ decisionType: 'SignalExternalWorkflowExecution', signalExternalWorkflowExecutionDecisionAttributes: { workflowId: 'w', signalName: 's', input: 'i' } });
    expect(decisions.requestCancelExternal({ workflowId: 'w' }))
      .toEqual({ decisionType: 'RequestCancelExternalWorkflowExecution', requestCancelExternalWorkflowExecutionDecisionAttributes: { workflowId: 'w' } });
    expect(decisions.startChildWorkflow({ workflowId: 'c', workflowType: { name: 'W', version: '1' }, executionStartToCloseTimeout: 60 }))
      .toEqual({ decisionType: 'StartChildWorkflowExecution', startChildWorkflowExecutionDecisionAttributes: { workflowId: 'c', workflowType: { name: 'W', version: '1' }, executionStartToCloseTimeout: '60' } });
    expect(decisions.continueAsNew({ input: 'n', taskStartToCloseTimeout: 10 }))
      .toEqual({ decisionType: 'ContinueAsNewWorkflowExecution', continueAsNewWorkflowExecutionDecisionAttributes: { input: 'n', taskStartToCloseTimeout: '10' } });
  });
});

describe('history helpers', () => {
  nextId = 1;
  const events = [
    ev('WorkflowExecutionStarted', { input: '{"o":1}' }),                 // 1
    ev('DecisionTaskScheduled'), ev('DecisionTaskStarted'), ev('DecisionTaskCompleted'),  // 2-4
    ev('ActivityTaskScheduled', { activityId: 'a', activityType: { name: 'T', version: '1' } }),  // 5
    ev('ActivityTaskStarted', { scheduledEventId: 5 }),                 // 6
    ev('ActivityTaskFailed', { scheduledEventId: 5, reason: 'boom' }),  // 7
    ev('TimerStarted', { timerId: 't1' }), ev('TimerFired', { timerId: 't1', startedEventId: 8 }),  // 8-9
    ev('ActivityTaskScheduled', { activityId: 'a' }),                   // 10: the retry
    ev('ActivityTaskScheduled', { activityId: 'b' }),                   // 11
    ev('DecisionTaskScheduled'), ev('DecisionTaskStarted'),             // 12-13
    ev('ActivityTaskStarted', { scheduledEventId: 10 }),                // 14
    ev('ActivityTaskCompleted', { scheduledEventId: 10, result: 'A' }), // 15
    ev('WorkflowExecutionSignaled', { signalName: 'go', input: 'now' }),  // 16
    ev('DecisionTaskScheduled'), ev('DecisionTaskStarted'),             // 17-18
  ];

  it('find an activity by activityId, its latest try winning', () => {
    expect(activity(events, 'a')).toEqual({ status: 'completed', scheduledEventId: 10, result: 'A' });
    expect(activityResult(events, 'a')).toBe('A');
    expect(activity(events.slice(0, 7), 'a')).toEqual({ status: 'failed', scheduledEventId: 5, reason: 'boom', details: undefined });
    expect(activity(events, 'b')).toEqual({ status: 'scheduled', scheduledEventId: 11 });
    expect(activityResult(events, 'b')).toBeUndefined();
    expect(activity(events, 'never')).toBeUndefined();
  });

  it('give the events since the previous decision, timers fired, signals received and the input', () => {
    const fresh = newEvents({ events, previousStartedEventId: 13 });
    expect(fresh.map((e) => e.eventId)).toEqual([14, 15, 16, 17, 18]);
    expect(signalsReceived(fresh)).toEqual([{ eventId: 16, signalName: 'go', input: 'now' }]);
    expect(signalsReceived(newEvents({ events: events.slice(0, 13), previousStartedEventId: 3 }))).toEqual([]);
    expect(timersFired(events)).toEqual(['t1']);
    expect(timersFired(fresh)).toEqual([]);
    expect(workflowInput(events)).toBe('{"o":1}');
  });
});
