/** The SWF history event vocabulary, shared by the machines and the engine. */
export const EVENT_TYPES = [
  'WorkflowExecutionStarted', 'WorkflowExecutionCancelRequested', 'WorkflowExecutionCompleted',
  'CompleteWorkflowExecutionFailed', 'WorkflowExecutionFailed', 'FailWorkflowExecutionFailed',
  'WorkflowExecutionTimedOut', 'WorkflowExecutionCanceled', 'CancelWorkflowExecutionFailed',
  'WorkflowExecutionContinuedAsNew', 'ContinueAsNewWorkflowExecutionFailed', 'WorkflowExecutionTerminated',
  'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'DecisionTaskTimedOut',
  'ActivityTaskScheduled', 'ScheduleActivityTaskFailed', 'ActivityTaskStarted', 'ActivityTaskCompleted',
  'ActivityTaskFailed', 'ActivityTaskTimedOut', 'ActivityTaskCanceled', 'ActivityTaskCancelRequested',
  'RequestCancelActivityTaskFailed', 'WorkflowExecutionSignaled', 'MarkerRecorded', 'RecordMarkerFailed',
  'TimerStarted', 'StartTimerFailed', 'TimerFired', 'TimerCanceled', 'CancelTimerFailed',
  'StartChildWorkflowExecutionInitiated', 'StartChildWorkflowExecutionFailed', 'ChildWorkflowExecutionStarted',
  'ChildWorkflowExecutionCompleted', 'ChildWorkflowExecutionFailed', 'ChildWorkflowExecutionTimedOut',
  'ChildWorkflowExecutionCanceled', 'ChildWorkflowExecutionTerminated',
  'SignalExternalWorkflowExecutionInitiated', 'SignalExternalWorkflowExecutionFailed',
  'ExternalWorkflowExecutionSignaled', 'RequestCancelExternalWorkflowExecutionInitiated',
  'RequestCancelExternalWorkflowExecutionFailed', 'ExternalWorkflowExecutionCancelRequested',
  'LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionCompleted', 'LambdaFunctionFailed',
  'LambdaFunctionTimedOut', 'ScheduleLambdaFunctionFailed', 'StartLambdaFunctionFailed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export type Attributes = Record<string, unknown>;

/**
 * One history event as the engine keeps it: `at` is epoch milliseconds, `attrs` is the
 * `<camelType>EventAttributes` member of the AWS shape. The machines consume these directly,
 * so replaying a history is feeding its events into the machines.
 */
export interface HistoryEvent<T extends EventType = EventType> {
  type: T;
  id: number;
  at: number;
  attrs: Attributes;
}

/** Timeout kinds as SWF names them in `timeoutType`. */
export type TimeoutType = 'START_TO_CLOSE' | 'SCHEDULE_TO_START' | 'SCHEDULE_TO_CLOSE' | 'HEARTBEAT';

/** The only time source a machine sees; the runtime injects a real or simulated one. */
export interface MachineClock {
  now(): number;
}

/** Milliseconds left until `deadline`, never negative; `null` deadlines never come due. */
export function remaining(clock: MachineClock, deadline: number | null): number {
  return deadline === null ? Number.MAX_SAFE_INTEGER : Math.max(0, deadline - clock.now());
}

/** `at + ms`, or `null` when the duration is NONE (`null`). */
export function deadlineAfter(at: number, ms: number | null): number | null {
  return ms === null ? null : at + ms;
}
