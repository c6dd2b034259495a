import { foldEvent, type ExecutionState } from '../../../machines/swf/execution-state.js';
import type { Attributes, EventType } from '../../../machines/swf/history-event.js';
import type { Decision } from '../decisions.js';
import type { ActivityTypeConfig, TypeRecord, WorkflowTypeConfig } from '../../registry/records.js';
import { resolveRunSettings } from '../run-settings.js';
import type { EventBatch } from './event-batch.js';

export const MAX_OPEN_ACTIVITIES = 1000;
export const MAX_OPEN_TIMERS = 1000;
export const MAX_OPEN_CHILDREN = 1000;

/** Type records looked up before the batch is applied, keyed by `name\0version` (null: no such type). */
export type ActivityTypes = Record<string, TypeRecord | null>;
export interface DecisionTypes {
  activity: Record<string, TypeRecord | null>;
  workflow: Record<string, TypeRecord | null>;
}
export const activityTypeKey = (t: { name: string; version: string }) => `${t.name}\u0000${t.version}`;

/** The workflow type a ContinueAsNew decision continues with (its version may change). */
export function continuedType(state: ExecutionState, version: string | undefined): { name: string; version: string } {
  const t = state.started.workflowType as { name: string; version: string };
  return { name: t.name, version: version ?? t.version };
}

function runTypeProblem(type: TypeRecord | null): string | undefined {
  if (!type) return 'WORKFLOW_TYPE_DOES_NOT_EXIST';
  if (type.status === 'DEPRECATED') return 'WORKFLOW_TYPE_DEPRECATED';
  return undefined;
}

/**
 * Applies a decision batch after DecisionTaskCompleted (id `dtc`): each decision becomes its
 * success event or its `*Failed` event with the documented cause. `unhandled` is true when a
 * decision-triggering event arrived while the task was open (UNHANDLED_DECISION).
 */
export function applyDecisions(state: ExecutionState, b: EventBatch, dtc: number, decisions: readonly Decision[],
  types: DecisionTypes, unhandled: boolean, newRunId: () => string): void {
  let cur = state;
  const add = (type: EventType, attrs: Attributes): number => {
    const id = b.add(type, attrs);
    cur = foldEvent(cur, b.events[b.events.length - 1]!);
    return id;
  };
  for (const { type, attrs: a } of decisions) {
    switch (type) {
      case 'ScheduleActivityTask': {
        const cause = scheduleProblem(cur, a, types.activity[activityTypeKey(a.activityType)] ?? null);
        if (typeof cause === 'string') add('ScheduleActivityTaskFailed', { activityType: a.activityType, activityId: a.activityId, cause, decisionTaskCompletedEventId: dtc });
        else add('ActivityTaskScheduled', { activityType: a.activityType, activityId: a.activityId, input: a.input, control: a.control, ...cause, decisionTaskCompletedEventId: dtc });
        break;
      }
      case 'RequestCancelActivityTask': {
        const act = cur.activities[a.activityId];
        if (!act) { add('RequestCancelActivityTaskFailed', { activityId: a.activityId, cause: 'ACTIVITY_ID_UNKNOWN', decisionTaskCompletedEventId: dtc }); break; }
        const req = add('ActivityTaskCancelRequested', { activityId: a.activityId, decisionTaskCompletedEventId: dtc });
        if (act.startedEventId === null) add('ActivityTaskCanceled', { scheduledEventId: act.scheduledEventId, startedEventId: 0, latestCancelRequestedEventId: req });
        break;
      }
      case 'CompleteWorkflowExecution':
        if (unhandled) add('CompleteWorkflowExecutionFailed', { cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: dtc });
        else add('WorkflowExecutionCompleted', { result: a.result, decisionTaskCompletedEventId: dtc });
        break;
      case 'FailWorkflowExecution':
        if (unhandled) add('FailWorkflowExecutionFailed', { cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: dtc });
        else add('WorkflowExecutionFailed', { reason: a.reason, details: a.details, decisionTaskCompletedEventId: dtc });
        break;
      case 'CancelWorkflowExecution':
        if (unhandled) add('CancelWorkflowExecutionFailed', { cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: dtc });
        else add('WorkflowExecutionCanceled', { details: a.details, decisionTaskCompletedEventId: dtc });
        break;
      case 'RecordMarker':
        add('MarkerRecorded', { markerName: a.markerName, details: a.details, decisionTaskCompletedEventId: dtc });
        break;
      case 'StartTimer':
        if (cur.timers[a.timerId] !== undefined) add('StartTimerFailed', { timerId: a.timerId, cause: 'TIMER_ID_ALREADY_IN_USE', decisionTaskCompletedEventId: dtc });
        else if (Object.keys(cur.timers).length >= MAX_OPEN_TIMERS) add('StartTimerFailed', { timerId: a.timerId, cause: 'OPEN_TIMERS_LIMIT_EXCEEDED', decisionTaskCompletedEventId: dtc });
        else add('TimerStarted', { timerId: a.timerId, control: a.control, startToFireTimeout: a.startToFireTimeout, decisionTaskCompletedEventId: dtc });
        break;
      case 'CancelTimer': {
        const startedEventId = cur.timers[a.timerId];
        if (startedEventId === undefined) add('CancelTimerFailed', { timerId: a.timerId, cause: 'TIMER_ID_UNKNOWN', decisionTaskCompletedEventId: dtc });
        else add('TimerCanceled', { timerId: a.timerId, startedEventId, decisionTaskCompletedEventId: dtc });
        break;
      }
      case 'ContinueAsNewWorkflowExecution': {
        if (unhandled) { add('ContinueAsNewWorkflowExecutionFailed', { cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: dtc }); break; }
        const workflowType = continuedType(cur, a.workflowTypeVersion);
        const type = types.workflow[activityTypeKey(workflowType)] ?? null;
        const typeProblem = runTypeProblem(type);
        const resolved = type ? resolveRunSettings(a, type.config as WorkflowTypeConfig) : undefined;
        const cause = typeProblem ?? (resolved && 'missing' in resolved ? resolved.cause : undefined);
        if (cause || !resolved || 'missing' in resolved) { add('ContinueAsNewWorkflowExecutionFailed', { cause, decisionTaskCompletedEventId: dtc }); break; }
        add('WorkflowExecutionContinuedAsNew', {
          input: a.input, decisionTaskCompletedEventId: dtc, newExecutionRunId: newRunId(), ...resolved.settings,
          tagList: a.tagList, workflowType,
        });
        break;
      }
      case 'StartChildWorkflowExecution': {
        const type = types.workflow[activityTypeKey(a.workflowType)] ?? null;
        const resolved = type ? resolveRunSettings(a, type.config as WorkflowTypeConfig) : undefined;
        const cause = runTypeProblem(type)
          ?? (Object.keys(cur.children).length >= MAX_OPEN_CHILDREN ? 'OPEN_CHILDREN_LIMIT_EXCEEDED' : undefined)
          ?? (resolved && 'missing' in resolved ? resolved.cause : undefined);
        if (cause || !resolved || 'missing' in resolved) {
          add('StartChildWorkflowExecutionFailed', {
            workflowType: a.workflowType, cause, workflowId: a.workflowId, initiatedEventId: 0, decisionTaskCompletedEventId: dtc, control: a.control,
          });
          break;
        }
        add('StartChildWorkflowExecutionInitiated', {
          workflowId: a.workflowId, workflowType: a.workflowType, control: a.control, input: a.input, ...resolved.settings,
          tagList: a.tagList, decisionTaskCompletedEventId: dtc,
        });
        break;
      }
      case 'SignalExternalWorkflowExecution':
        add('SignalExternalWorkflowExecutionInitiated', {
          workflowId: a.workflowId, runId: a.runId, signalName: a.signalName, input: a.input, control: a.control, decisionTaskCompletedEventId: dtc,
        });
        break;
      case 'RequestCancelExternalWorkflowExecution':
        add('RequestCancelExternalWorkflowExecutionInitiated', {
          workflowId: a.workflowId, runId: a.runId, control: a.control, decisionTaskCompletedEventId: dtc,
        });
        break;
      case 'ScheduleLambdaFunction':
        add('ScheduleLambdaFunctionFailed', { id: a.id, name: a.name, cause: 'LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION', decisionTaskCompletedEventId: dtc });
        break;
      default:
        break;
    }
  }
}

/** The ScheduleActivityTaskFailed cause (SWF's order of checks), or the resolved task settings. */
function scheduleProblem(cur: ExecutionState, a: Record<string, any>, type: TypeRecord | null): string | Attributes {
  if (!type) return 'ACTIVITY_TYPE_DOES_NOT_EXIST';
  if (type.status === 'DEPRECATED') return 'ACTIVITY_TYPE_DEPRECATED';
  if (cur.activities[a.activityId]) return 'ACTIVITY_ID_ALREADY_IN_USE';
  if (Object.keys(cur.activities).length >= MAX_OPEN_ACTIVITIES) return 'OPEN_ACTIVITIES_LIMIT_EXCEEDED';
  const d = type.config as ActivityTypeConfig;
  const taskList = a.taskList ?? d.defaultTaskList;
  if (!taskList) return 'DEFAULT_TASK_LIST_UNDEFINED';
  const scheduleToCloseTimeout = a.scheduleToCloseTimeout ?? d.defaultTaskScheduleToCloseTimeout;
  if (scheduleToCloseTimeout === undefined) return 'DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED';
  const scheduleToStartTimeout = a.scheduleToStartTimeout ?? d.defaultTaskScheduleToStartTimeout;
  if (scheduleToStartTimeout === undefined) return 'DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED';
  const startToCloseTimeout = a.startToCloseTimeout ?? d.defaultTaskStartToCloseTimeout;
  if (startToCloseTimeout === undefined) return 'DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED';
  const heartbeatTimeout = a.heartbeatTimeout ?? d.defaultTaskHeartbeatTimeout;
  if (heartbeatTimeout === undefined) return 'DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED';
  return {
    taskList, taskPriority: a.taskPriority ?? d.defaultTaskPriority ?? '0',
    scheduleToStartTimeout, scheduleToCloseTimeout, startToCloseTimeout, heartbeatTimeout,
  };
}
