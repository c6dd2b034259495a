import type { Attributes, EventType, HistoryEvent } from './history-event.js';

export type CloseStatus = 'COMPLETED' | 'FAILED' | 'CANCELED' | 'TERMINATED' | 'CONTINUED_AS_NEW' | 'TIMED_OUT';

export interface OpenActivity {
  activityId: string;
  scheduledEventId: number;
  startedEventId: number | null;
  cancelRequested: boolean;
}

/** A child workflow from StartChildWorkflowExecutionInitiated until it closes (or fails to start). */
export interface OpenChild {
  initiatedEventId: number;
  workflowId: string;
  runId: string | null;
  /** The parent's ChildWorkflowExecutionStarted event. */
  startedEventId: number;
}

/** A SignalExternal/RequestCancelExternal decision that is on its way to the other run. */
export interface PendingExternal {
  initiatedEventId: number;
  kind: 'signal' | 'cancel';
}

export interface OpenDecisionTask {
  scheduledEventId: number;
  startedEventId: number | null;
}

/** An execution as a fold over its history: everything the engine decides with. */
export interface ExecutionState {
  lastEventId: number;
  startedAt: number;
  closedAt: number | null;
  closeStatus: CloseStatus | null;
  started: Attributes;
  /** Task list for the next decision task (a decision may redirect it). */
  decisionTaskList: string;
  /**
   * `taskListScheduleToStartTimeout` of the last redirect: the SCHEDULE_TO_START timeout of each
   * decision task scheduled on that list (null: none, the redirect is permanent).
   */
  decisionScheduleToStart: string | null;
  /** The list a temporary redirect reverts to when one of its decision tasks times out. */
  decisionTaskListRevert: string | null;
  decision: OpenDecisionTask | null;
  /** A decision-triggering event arrived that no started decision task has seen yet. */
  needsDecision: boolean;
  previousStartedEventId: number;
  activities: Record<string, OpenActivity>;
  timers: Record<string, number>;
  /** Open children by initiatedEventId. */
  children: Record<number, OpenChild>;
  /** External signals and cancel requests not yet acknowledged, by initiatedEventId. */
  externals: Record<number, PendingExternal>;
  cancelRequested: boolean;
  latestActivityTaskTimestamp: number | null;
  latestExecutionContext: string | null;
}

/** Events that make SWF schedule a decision task (one open decision task per execution). */
export const DECISION_TRIGGERS: ReadonlySet<EventType> = new Set<EventType>([
  'WorkflowExecutionStarted', 'WorkflowExecutionSignaled', 'WorkflowExecutionCancelRequested',
  'ActivityTaskCompleted', 'ActivityTaskFailed', 'ActivityTaskTimedOut', 'ActivityTaskCanceled',
  'TimerFired', 'DecisionTaskTimedOut',
  'ScheduleActivityTaskFailed', 'RequestCancelActivityTaskFailed', 'CompleteWorkflowExecutionFailed',
  'FailWorkflowExecutionFailed', 'CancelWorkflowExecutionFailed', 'ContinueAsNewWorkflowExecutionFailed',
  'RecordMarkerFailed', 'StartTimerFailed', 'CancelTimerFailed',
  'StartChildWorkflowExecutionFailed', 'ChildWorkflowExecutionStarted', 'ChildWorkflowExecutionCompleted',
  'ChildWorkflowExecutionFailed', 'ChildWorkflowExecutionTimedOut', 'ChildWorkflowExecutionCanceled',
  'ChildWorkflowExecutionTerminated', 'ExternalWorkflowExecutionSignaled', 'SignalExternalWorkflowExecutionFailed',
  'ExternalWorkflowExecutionCancelRequested', 'RequestCancelExternalWorkflowExecutionFailed',
  'LambdaFunctionCompleted', 'LambdaFunctionFailed', 'LambdaFunctionTimedOut', 'ScheduleLambdaFunctionFailed',
  'StartLambdaFunctionFailed',
]);

export const CLOSE_EVENTS: Readonly<Partial<Record<EventType, CloseStatus>>> = {
  WorkflowExecutionCompleted: 'COMPLETED',
  WorkflowExecutionFailed: 'FAILED',
  WorkflowExecutionCanceled: 'CANCELED',
  WorkflowExecutionTerminated: 'TERMINATED',
  WorkflowExecutionContinuedAsNew: 'CONTINUED_AS_NEW',
  WorkflowExecutionTimedOut: 'TIMED_OUT',
};

export function initialExecutionState(): ExecutionState {
  return {
    lastEventId: 0, startedAt: 0, closedAt: null, closeStatus: null, started: {}, decisionTaskList: '',
    decisionScheduleToStart: null, decisionTaskListRevert: null,
    decision: null, needsDecision: false, previousStartedEventId: 0, activities: {}, timers: {},
    children: {}, externals: {}, cancelRequested: false, latestActivityTaskTimestamp: null, latestExecutionContext: null,
  };
}

/** The open activity scheduled by event `scheduledEventId`. */
export function activityByScheduled(s: ExecutionState, scheduledEventId: unknown): OpenActivity | undefined {
  for (const a of Object.values(s.activities)) if (a.scheduledEventId === scheduledEventId) return a;
  return undefined;
}

function without<V>(rec: Record<string, V>, key: string): Record<string, V> {
  const { [key]: _gone, ...rest } = rec;
  return rest;
}

/**
 * DecisionTaskCompleted's `taskList` and `taskListScheduleToStartTimeout` (AWS: "When this parameter is
 * missing, the task list override is permanent"; with it the override is temporary: a decision task
 * scheduled on it that is not started in time times out and the original list is used again).
 * A timeout without a taskList applies to the current list.
 */
function redirectDecisions(s: ExecutionState, a: Attributes): void {
  const to = (a.taskList as { name: string } | undefined)?.name;
  const timeout = a.taskListScheduleToStartTimeout;
  if (typeof timeout === 'string' && timeout !== 'NONE') {
    s.decisionTaskListRevert = s.decisionTaskListRevert ?? s.decisionTaskList;
    s.decisionScheduleToStart = timeout;
    if (to !== undefined) s.decisionTaskList = to;
  } else if (to !== undefined) {
    s.decisionTaskList = to;
    s.decisionTaskListRevert = null;
    s.decisionScheduleToStart = null;
  }
}

/** Applies one history event. Pure: returns a new state, never mutates. */
export function foldEvent(prev: ExecutionState, e: HistoryEvent): ExecutionState {
  const s: ExecutionState = { ...prev, lastEventId: e.id };
  const a = e.attrs;
  if (DECISION_TRIGGERS.has(e.type)) s.needsDecision = true;
  const closeStatus = CLOSE_EVENTS[e.type];
  if (closeStatus) {
    s.closeStatus = closeStatus;
    s.closedAt = e.at;
    s.decision = null;
    return s;
  }
  switch (e.type) {
    case 'WorkflowExecutionStarted':
      s.startedAt = e.at;
      s.started = a;
      s.decisionTaskList = (a.taskList as { name: string }).name;
      break;
    case 'WorkflowExecutionCancelRequested':
      s.cancelRequested = true;
      break;
    case 'DecisionTaskScheduled':
      s.decision = { scheduledEventId: e.id, startedEventId: null };
      break;
    case 'DecisionTaskStarted':
      s.decision = { scheduledEventId: a.scheduledEventId as number, startedEventId: e.id };
      s.needsDecision = false;
      break;
    case 'DecisionTaskCompleted':
      s.decision = null;
      s.previousStartedEventId = a.startedEventId as number;
      if (typeof a.executionContext === 'string') s.latestExecutionContext = a.executionContext;
      redirectDecisions(s, a);
      break;
    case 'DecisionTaskTimedOut':
      s.decision = null;
      // AWS: a decision task on a temporary redirect that times out reverts the redirect.
      if (s.decisionTaskListRevert !== null) {
        s.decisionTaskList = s.decisionTaskListRevert;
        s.decisionTaskListRevert = null;
        s.decisionScheduleToStart = null;
      }
      break;
    case 'ActivityTaskScheduled': {
      const activityId = a.activityId as string;
      s.activities = { ...s.activities, [activityId]: { activityId, scheduledEventId: e.id, startedEventId: null, cancelRequested: false } };
      // SWF: "the time when the last activity task was scheduled for this workflow execution".
      s.latestActivityTaskTimestamp = e.at;
      break;
    }
    case 'ActivityTaskStarted': {
      const act = activityByScheduled(s, a.scheduledEventId);
      if (act) s.activities = { ...s.activities, [act.activityId]: { ...act, startedEventId: e.id } };
      break;
    }
    case 'ActivityTaskCancelRequested': {
      const act = s.activities[a.activityId as string];
      if (act) s.activities = { ...s.activities, [act.activityId]: { ...act, cancelRequested: true } };
      break;
    }
    case 'ActivityTaskCompleted':
    case 'ActivityTaskFailed':
    case 'ActivityTaskTimedOut':
    case 'ActivityTaskCanceled': {
      const act = activityByScheduled(s, a.scheduledEventId);
      if (act) s.activities = without(s.activities, act.activityId);
      break;
    }
    case 'TimerStarted':
      s.timers = { ...s.timers, [a.timerId as string]: e.id };
      break;
    case 'TimerFired':
    case 'TimerCanceled':
      s.timers = without(s.timers, a.timerId as string);
      break;
    case 'StartChildWorkflowExecutionInitiated':
      s.children = { ...s.children, [e.id]: { initiatedEventId: e.id, workflowId: a.workflowId as string, runId: null, startedEventId: 0 } };
      break;
    case 'ChildWorkflowExecutionStarted': {
      const child = s.children[a.initiatedEventId as number];
      const runId = (a.workflowExecution as { runId?: string } | undefined)?.runId ?? null;
      if (child) s.children = { ...s.children, [child.initiatedEventId]: { ...child, runId, startedEventId: e.id } };
      break;
    }
    case 'StartChildWorkflowExecutionFailed':
    case 'ChildWorkflowExecutionCompleted':
    case 'ChildWorkflowExecutionFailed':
    case 'ChildWorkflowExecutionTimedOut':
    case 'ChildWorkflowExecutionCanceled':
    case 'ChildWorkflowExecutionTerminated':
      s.children = without(s.children as Record<string, OpenChild>, String(a.initiatedEventId));
      break;
    case 'SignalExternalWorkflowExecutionInitiated':
      s.externals = { ...s.externals, [e.id]: { initiatedEventId: e.id, kind: 'signal' } };
      break;
    case 'RequestCancelExternalWorkflowExecutionInitiated':
      s.externals = { ...s.externals, [e.id]: { initiatedEventId: e.id, kind: 'cancel' } };
      break;
    case 'ExternalWorkflowExecutionSignaled':
    case 'SignalExternalWorkflowExecutionFailed':
    case 'ExternalWorkflowExecutionCancelRequested':
    case 'RequestCancelExternalWorkflowExecutionFailed':
      s.externals = without(s.externals as Record<string, PendingExternal>, String(a.initiatedEventId));
      break;
    default:
      break;
  }
  return s;
}

export function foldHistory(events: readonly HistoryEvent[], from: ExecutionState = initialExecutionState()): ExecutionState {
  let s = from;
  for (const e of events) s = foldEvent(s, e);
  return s;
}
