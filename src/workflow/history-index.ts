import { attributesOf as attrs, type WireEvent } from '../sdk/client.js';

export { attrs };

/** What a command is, as code issues it and as its decision event records it. */
export type CommandKind = 'activity' | 'cancelActivity' | 'timer' | 'cancelTimer' | 'marker' | 'child' | 'signalExternal' | 'cancelExternal' | 'close';

interface DecisionEventShape {
  kind: CommandKind;
  id(a: Record<string, any>, e: WireEvent): string;
  /** The decision was refused: the command fails when the walk reaches this event. */
  refused?: true;
}

const closeId = (decisionType: string) => () => decisionType;

/**
 * The events that record a decision, one per decision, in the order the decisions were made: the
 * n-th command the code issues is recorded by the n-th of these events.
 */
const DECISION_EVENTS: Record<string, DecisionEventShape> = {
  ActivityTaskScheduled: { kind: 'activity', id: (a) => a.activityId },
  ScheduleActivityTaskFailed: { kind: 'activity', id: (a) => a.activityId, refused: true },
  ActivityTaskCancelRequested: { kind: 'cancelActivity', id: (a) => a.activityId },
  RequestCancelActivityTaskFailed: { kind: 'cancelActivity', id: (a) => a.activityId, refused: true },
  TimerStarted: { kind: 'timer', id: (a) => a.timerId },
  StartTimerFailed: { kind: 'timer', id: (a) => a.timerId, refused: true },
  TimerCanceled: { kind: 'cancelTimer', id: (a) => a.timerId },
  CancelTimerFailed: { kind: 'cancelTimer', id: (a) => a.timerId, refused: true },
  MarkerRecorded: { kind: 'marker', id: (a) => a.markerName },
  RecordMarkerFailed: { kind: 'marker', id: (a) => a.markerName, refused: true },
  StartChildWorkflowExecutionInitiated: { kind: 'child', id: (a) => a.workflowId },
  SignalExternalWorkflowExecutionInitiated: { kind: 'signalExternal', id: (a) => a.workflowId },
  RequestCancelExternalWorkflowExecutionInitiated: { kind: 'cancelExternal', id: (a) => a.workflowId },
  WorkflowExecutionCompleted: { kind: 'close', id: closeId('CompleteWorkflowExecution') },
  CompleteWorkflowExecutionFailed: { kind: 'close', id: closeId('CompleteWorkflowExecution'), refused: true },
  WorkflowExecutionFailed: { kind: 'close', id: closeId('FailWorkflowExecution') },
  FailWorkflowExecutionFailed: { kind: 'close', id: closeId('FailWorkflowExecution'), refused: true },
  WorkflowExecutionCanceled: { kind: 'close', id: closeId('CancelWorkflowExecution') },
  CancelWorkflowExecutionFailed: { kind: 'close', id: closeId('CancelWorkflowExecution'), refused: true },
  WorkflowExecutionContinuedAsNew: { kind: 'close', id: closeId('ContinueAsNewWorkflowExecution') },
  ContinueAsNewWorkflowExecutionFailed: { kind: 'close', id: closeId('ContinueAsNewWorkflowExecution'), refused: true },
};

/**
 * Failures that follow an `…Initiated` event (the engine tried and failed later) or stand for the
 * decision itself when nothing was initiated (refused at decision time).
 */
const INITIATED_FAILURES: Record<string, CommandKind> = {
  StartChildWorkflowExecutionFailed: 'child',
  SignalExternalWorkflowExecutionFailed: 'signalExternal',
  RequestCancelExternalWorkflowExecutionFailed: 'cancelExternal',
};

/** Markers the framework records about itself; they stand for no command of the code. */
export const FRAMEWORK_MARKER_PREFIX = 'ActorFlow.';

export interface DecisionEvent {
  event: WireEvent;
  kind: CommandKind;
  id: string;
  refused: boolean;
}

/** A history read once: its decision events in order, and when each event's decision task started. */
export class HistoryIndex {
  readonly decisions: DecisionEvent[] = [];
  /** Index into `decisions` of each decision event, by event id. */
  readonly decisionAt = new Map<number, number>();
  /** The epoch ms at which the code reacting to event i runs: the next DecisionTaskStarted's time. */
  readonly runsAt: number[];

  constructor(readonly events: WireEvent[]) {
    const initiated = new Set<number>();
    for (const e of events) {
      const a = attrs(e);
      let shape = DECISION_EVENTS[e.eventType];
      const failed = INITIATED_FAILURES[e.eventType];
      if (e.eventType.endsWith('Initiated')) initiated.add(e.eventId);
      if (!shape && failed && !initiated.has(Number(a.initiatedEventId))) {
        shape = { kind: failed, id: (x) => x.workflowId, refused: true };
      }
      if (!shape) continue;
      if (shape.kind === 'marker' && String(a.markerName).startsWith(FRAMEWORK_MARKER_PREFIX)) continue;
      this.decisionAt.set(e.eventId, this.decisions.length);
      this.decisions.push({ event: e, kind: shape.kind, id: String(shape.id(a, e)), refused: shape.refused === true });
    }
    // The code reacting to an event runs in the decision task that answered after it: the one the
    // next DecisionTaskCompleted names (not a task that timed out meanwhile); for the task being
    // decided now, the last DecisionTaskStarted.
    const startedAt = new Map<number, number>();
    for (const e of events) if (e.eventType === 'DecisionTaskStarted') startedAt.set(e.eventId, e.eventTimestamp * 1000);
    this.runsAt = new Array<number>(events.length);
    const lastStarted = [...events].reverse().find((e) => e.eventType === 'DecisionTaskStarted');
    let next = (lastStarted ?? events[events.length - 1])?.eventTimestamp ?? 0;
    next *= 1000;
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.eventType === 'DecisionTaskCompleted') next = startedAt.get(Number(attrs(e).startedEventId)) ?? e.eventTimestamp * 1000;
      this.runsAt[i] = next;
    }
  }
}
