import type * as Swf from './types/swf.js';

/** A timeout or duration in seconds, as SWF takes it: a number, a numeric string, or `NONE`. */
export type Seconds = number | string;
const secs = (s: Seconds): string => String(s);

type Attrs<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | Seconds };
type ScheduleActivity = Attrs<Swf.ScheduleActivityTaskDecisionAttributes,
  'scheduleToStartTimeout' | 'scheduleToCloseTimeout' | 'startToCloseTimeout' | 'heartbeatTimeout'>;
type StartChild = Attrs<Swf.StartChildWorkflowExecutionDecisionAttributes, 'executionStartToCloseTimeout' | 'taskStartToCloseTimeout'>;
type ContinueAsNew = Attrs<Swf.ContinueAsNewWorkflowExecutionDecisionAttributes, 'executionStartToCloseTimeout' | 'taskStartToCloseTimeout'>;

/** The named timeouts of `attrs` as strings (SWF's wire form), the rest as given. */
function withSeconds<T extends object>(attrs: T, keys: readonly string[]): T {
  const out = { ...attrs } as Record<string, unknown>;
  for (const k of keys) if (out[k] !== undefined) out[k] = secs(out[k] as Seconds);
  return out as T;
}

/**
 * Builders of the decisions a decider returns, in the shapes of the AWS service model
 * (`{ decisionType, <decisionType>DecisionAttributes }`). Timeouts may be given as numbers of seconds.
 */
export const decisions = {
  /** ScheduleActivityTask: `scheduleActivity({ activityId, activityType: { name, version }, input })`. */
  scheduleActivity(attrs: ScheduleActivity): Swf.Decision {
    return { decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: withSeconds(attrs, ['scheduleToStartTimeout', 'scheduleToCloseTimeout', 'startToCloseTimeout', 'heartbeatTimeout']) as Swf.ScheduleActivityTaskDecisionAttributes };
  },
  /** RequestCancelActivityTask of the activity with this activityId. */
  requestCancelActivity(activityId: string): Swf.Decision {
    return { decisionType: 'RequestCancelActivityTask', requestCancelActivityTaskDecisionAttributes: { activityId } };
  },
  /** StartTimer: fires TimerFired after `startToFireTimeout` seconds. */
  startTimer(timerId: string, startToFireTimeout: Seconds, control?: string): Swf.Decision {
    return { decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId, startToFireTimeout: secs(startToFireTimeout), ...(control === undefined ? {} : { control }) } };
  },
  /** CancelTimer of the timer with this timerId. */
  cancelTimer(timerId: string): Swf.Decision {
    return { decisionType: 'CancelTimer', cancelTimerDecisionAttributes: { timerId } };
  },
  /** RecordMarker: a MarkerRecorded event in the history, for the decider's own bookkeeping. */
  recordMarker(markerName: string, details?: string): Swf.Decision {
    return { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName, ...(details === undefined ? {} : { details }) } };
  },
  /** CompleteWorkflowExecution with this result. */
  completeWorkflow(result?: string): Swf.Decision {
    return { decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: result === undefined ? {} : { result } };
  },
  /** FailWorkflowExecution with this reason and details. */
  failWorkflow(reason?: string, details?: string): Swf.Decision {
    return { decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { ...(reason === undefined ? {} : { reason }), ...(details === undefined ? {} : { details }) } };
  },
  /** CancelWorkflowExecution (after a WorkflowExecutionCancelRequested). */
  cancelWorkflow(details?: string): Swf.Decision {
    return { decisionType: 'CancelWorkflowExecution', cancelWorkflowExecutionDecisionAttributes: details === undefined ? {} : { details } };
  },
  /** ContinueAsNewWorkflowExecution: closes this run and starts a new one of the same workflowId. */
  continueAsNew(attrs: ContinueAsNew = {}): Swf.Decision {
    return { decisionType: 'ContinueAsNewWorkflowExecution', continueAsNewWorkflowExecutionDecisionAttributes: withSeconds(attrs, ['executionStartToCloseTimeout', 'taskStartToCloseTimeout']) as Swf.ContinueAsNewWorkflowExecutionDecisionAttributes };
  },
  /** SignalExternalWorkflowExecution: `signalExternal({ workflowId, signalName, input })`. */
  signalExternal(attrs: Swf.SignalExternalWorkflowExecutionDecisionAttributes): Swf.Decision {
    return { decisionType: 'SignalExternalWorkflowExecution', signalExternalWorkflowExecutionDecisionAttributes: attrs };
  },
  /** RequestCancelExternalWorkflowExecution of another workflow execution. */
  requestCancelExternal(attrs: Swf.RequestCancelExternalWorkflowExecutionDecisionAttributes): Swf.Decision {
    return { decisionType: 'RequestCancelExternalWorkflowExecution', requestCancelExternalWorkflowExecutionDecisionAttributes: attrs };
  },
  /** StartChildWorkflowExecution: `startChildWorkflow({ workflowId, workflowType: { name, version }, input })`. */
  startChildWorkflow(attrs: StartChild): Swf.Decision {
    return { decisionType: 'StartChildWorkflowExecution', startChildWorkflowExecutionDecisionAttributes: withSeconds(attrs, ['executionStartToCloseTimeout', 'taskStartToCloseTimeout']) as Swf.StartChildWorkflowExecutionDecisionAttributes };
  },
} as const;
