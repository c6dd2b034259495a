import type * as Swf from './types/swf.js';
import type { WireEvent } from './client.js';

/** A history event with its attributes typed as the AWS service model has them. */
export type HistoryEvent = Swf.HistoryEvent;

/** Events as the client returns them (`WireEvent`) or as `newEvents` gives them. */
export type Events = readonly (WireEvent | HistoryEvent)[];

const typed = (events: Events): readonly HistoryEvent[] => events as unknown as readonly HistoryEvent[];

/** What a decider needs of its task to find its place in the history. */
export interface DecisionTaskHistory {
  events: Events;
  /** The DecisionTaskStarted of the previous decision task this decider answered (0 on the first). */
  previousStartedEventId: number;
}

/** The events since the previous decision task: what happened that this decision has to answer. */
export function newEvents(task: DecisionTaskHistory): HistoryEvent[] {
  return typed(task.events).filter((e) => (e.eventId ?? 0) > task.previousStartedEventId);
}

/** The workflow's input (WorkflowExecutionStarted), or undefined when it had none. */
export function workflowInput(events: Events): string | undefined {
  return typed(events).find((e) => e.eventType === 'WorkflowExecutionStarted')?.workflowExecutionStartedEventAttributes?.input;
}

/** Where an activity is, by its activityId: the last of its tries, with its result or failure. */
export type ActivityState =
  | { status: 'scheduled' | 'started' | 'cancelRequested'; scheduledEventId: number }
  | { status: 'completed'; scheduledEventId: number; result?: string }
  | { status: 'failed'; scheduledEventId: number; reason?: string; details?: string }
  | { status: 'timedOut'; scheduledEventId: number; timeoutType?: Swf.ActivityTaskTimeoutType; details?: string }
  | { status: 'canceled'; scheduledEventId: number; details?: string }
  | { status: 'scheduleFailed'; cause?: Swf.ScheduleActivityTaskFailedCause };

/**
 * The state of the activity with this activityId (its latest ActivityTaskScheduled: an activity
 * scheduled again after a failure is the new try), or undefined when it was never scheduled.
 */
export function activity(events: Events, activityId: string): ActivityState | undefined {
  let state: ActivityState | undefined;
  let scheduledEventId = -1;
  for (const e of typed(events)) {
    const id = e.eventId ?? 0;
    switch (e.eventType) {
      case 'ActivityTaskScheduled':
        if (e.activityTaskScheduledEventAttributes?.activityId === activityId) { scheduledEventId = id; state = { status: 'scheduled', scheduledEventId }; }
        break;
      case 'ScheduleActivityTaskFailed':
        if (e.scheduleActivityTaskFailedEventAttributes?.activityId === activityId) { scheduledEventId = -1; state = { status: 'scheduleFailed', cause: e.scheduleActivityTaskFailedEventAttributes.cause }; }
        break;
      case 'ActivityTaskStarted':
        if (e.activityTaskStartedEventAttributes?.scheduledEventId === scheduledEventId) state = { status: 'started', scheduledEventId };
        break;
      case 'ActivityTaskCancelRequested':
        if (e.activityTaskCancelRequestedEventAttributes?.activityId === activityId && scheduledEventId >= 0) state = { status: 'cancelRequested', scheduledEventId };
        break;
      case 'ActivityTaskCompleted': {
        const a = e.activityTaskCompletedEventAttributes;
        if (a?.scheduledEventId === scheduledEventId) state = { status: 'completed', scheduledEventId, ...(a.result === undefined ? {} : { result: a.result }) };
        break;
      }
      case 'ActivityTaskFailed': {
        const a = e.activityTaskFailedEventAttributes;
        if (a?.scheduledEventId === scheduledEventId) state = { status: 'failed', scheduledEventId, reason: a.reason, details: a.details };
        break;
      }
      case 'ActivityTaskTimedOut': {
        const a = e.activityTaskTimedOutEventAttributes;
        if (a?.scheduledEventId === scheduledEventId) state = { status: 'timedOut', scheduledEventId, timeoutType: a.timeoutType, details: a.details };
        break;
      }
      case 'ActivityTaskCanceled': {
        const a = e.activityTaskCanceledEventAttributes;
        if (a?.scheduledEventId === scheduledEventId) state = { status: 'canceled', scheduledEventId, details: a.details };
        break;
      }
    }
  }
  return state;
}

/** The result of the activity with this activityId once it completed, else undefined. */
export function activityResult(events: Events, activityId: string): string | undefined {
  const a = activity(events, activityId);
  return a?.status === 'completed' ? a.result : undefined;
}

/** The timerIds of the timers that fired, in order. */
export function timersFired(events: Events): string[] {
  return typed(events).flatMap((e) => e.eventType === 'TimerFired' && e.timerFiredEventAttributes?.timerId !== undefined ? [e.timerFiredEventAttributes.timerId] : []);
}

/** A signal the run received (WorkflowExecutionSignaled). */
export interface ReceivedSignal { eventId: number; signalName: string; input?: string }

/** The signals the run received, in order (pass `newEvents(task)` for those since the previous decision). */
export function signalsReceived(events: Events): ReceivedSignal[] {
  return typed(events).flatMap((e) => {
    const a = e.eventType === 'WorkflowExecutionSignaled' ? e.workflowExecutionSignaledEventAttributes : undefined;
    if (a?.signalName === undefined) return [];
    return [{ eventId: e.eventId ?? 0, signalName: a.signalName, ...(a.input === undefined ? {} : { input: a.input }) }];
  });
}
