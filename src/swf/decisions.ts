import { Fault } from '../protocol/faults.js';
import { InputReader } from '../protocol/validate.js';

export type DecisionType =
  | 'ScheduleActivityTask' | 'RequestCancelActivityTask' | 'CompleteWorkflowExecution' | 'FailWorkflowExecution'
  | 'CancelWorkflowExecution' | 'ContinueAsNewWorkflowExecution' | 'RecordMarker' | 'StartTimer' | 'CancelTimer'
  | 'SignalExternalWorkflowExecution' | 'RequestCancelExternalWorkflowExecution' | 'StartChildWorkflowExecution'
  | 'ScheduleLambdaFunction';

const ALL: ReadonlySet<string> = new Set([
  'ScheduleActivityTask', 'RequestCancelActivityTask', 'CompleteWorkflowExecution', 'FailWorkflowExecution',
  'CancelWorkflowExecution', 'RecordMarker', 'StartTimer', 'CancelTimer', 'ScheduleLambdaFunction',
  'ContinueAsNewWorkflowExecution', 'SignalExternalWorkflowExecution', 'RequestCancelExternalWorkflowExecution',
  'StartChildWorkflowExecution',
]);
export const CHILD_POLICIES = ['TERMINATE', 'REQUEST_CANCEL', 'ABANDON'] as const;

/** The members shared by StartChildWorkflowExecution and ContinueAsNewWorkflowExecution. */
function runSettings(r: InputReader): Record<string, unknown> {
  return {
    input: r.data('input'),
    executionStartToCloseTimeout: r.duration('executionStartToCloseTimeout', { allowNone: false }),
    taskList: r.taskList('taskList', false),
    taskPriority: r.priority('taskPriority'),
    taskStartToCloseTimeout: r.duration('taskStartToCloseTimeout', { allowNone: true }),
    childPolicy: r.str('childPolicy', { max: 16, oneOf: CHILD_POLICIES }),
    tagList: r.tags(),
    lambdaRole: r.str('lambdaRole', { min: 1, max: 1224 }),
  };
}
export const CLOSE_DECISIONS: ReadonlySet<string> = new Set([
  'CompleteWorkflowExecution', 'FailWorkflowExecution', 'CancelWorkflowExecution', 'ContinueAsNewWorkflowExecution',
]);

export interface Decision {
  type: DecisionType;
  attrs: Record<string, any>;
}

const attrsName = (t: string) => `${t[0]!.toLowerCase()}${t.slice(1)}DecisionAttributes`;

function readAttrs(type: DecisionType, r: InputReader): Record<string, unknown> {
  switch (type) {
    case 'ScheduleActivityTask':
      return {
        activityType: r.type('activityType', true), activityId: r.id('activityId', true), control: r.data('control'),
        input: r.data('input'), scheduleToCloseTimeout: r.duration('scheduleToCloseTimeout', { allowNone: true }),
        taskList: r.taskList('taskList', false), taskPriority: r.priority('taskPriority'),
        scheduleToStartTimeout: r.duration('scheduleToStartTimeout', { allowNone: true }),
        startToCloseTimeout: r.duration('startToCloseTimeout', { allowNone: true }),
        heartbeatTimeout: r.duration('heartbeatTimeout', { allowNone: true }),
      };
    case 'RequestCancelActivityTask':
      return { activityId: r.id('activityId', true) };
    case 'CompleteWorkflowExecution':
      return { result: r.data('result') };
    case 'FailWorkflowExecution':
      return { reason: r.str('reason', { max: 256 }), details: r.data('details') };
    case 'CancelWorkflowExecution':
      return { details: r.data('details') };
    case 'RecordMarker':
      return { markerName: r.id('markerName', true), details: r.data('details') };
    case 'StartTimer':
      return { timerId: r.id('timerId', true), control: r.data('control'), startToFireTimeout: r.duration('startToFireTimeout', { allowNone: false, required: true }) };
    case 'CancelTimer':
      return { timerId: r.id('timerId', true) };
    case 'ContinueAsNewWorkflowExecution':
      return { ...runSettings(r), workflowTypeVersion: r.id('workflowTypeVersion', false, 64) };
    case 'StartChildWorkflowExecution':
      return { workflowType: r.type('workflowType', true), workflowId: r.id('workflowId', true), control: r.data('control'), ...runSettings(r) };
    case 'SignalExternalWorkflowExecution':
      return {
        workflowId: r.id('workflowId', true), runId: r.str('runId', { min: 1, max: 64 }), signalName: r.id('signalName', true),
        input: r.data('input'), control: r.data('control'),
      };
    case 'RequestCancelExternalWorkflowExecution':
      return { workflowId: r.id('workflowId', true), runId: r.str('runId', { min: 1, max: 64 }), control: r.data('control') };
    case 'ScheduleLambdaFunction':
      return { id: r.id('id', true), name: r.id('name', true, 64), control: r.data('control'), input: r.data('input'), startToCloseTimeout: r.duration('startToCloseTimeout', { allowNone: true }) };
    default:
      return {};
  }
}

/**
 * Validates a whole decision batch as SWF does: any malformed decision rejects the batch with
 * ValidationException and nothing is applied; a close decision must be the last one.
 */
export function readDecisions(r: InputReader): Decision[] {
  const out = r.list('decisions', { max: 10_000 }, (d, item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Fault('SerializationException', 'decisions members must be objects');
    const type = d.str('decisionType', { max: 64, required: true, oneOf: [...ALL] }) as DecisionType | undefined;
    if (type === undefined || !ALL.has(type)) return { type: 'RecordMarker' as DecisionType, attrs: {} };
    const optional = type === 'CompleteWorkflowExecution' || type === 'FailWorkflowExecution' || type === 'CancelWorkflowExecution'
      || type === 'ContinueAsNewWorkflowExecution';
    const attrs = d.struct(attrsName(type), !optional,
      (a) => readAttrs(type, a)) ?? {};
    return { type, attrs };
  }) ?? [];
  r.done();
  const closeAt = out.findIndex((d) => CLOSE_DECISIONS.has(d.type));
  if (closeAt >= 0 && closeAt !== out.length - 1) throw new Fault('ValidationException', 'Close must be last decision in list');
  if (out.filter((d) => CLOSE_DECISIONS.has(d.type)).length > 1) throw new Fault('ValidationException', 'Close must be last decision in list');
  return out;
}
