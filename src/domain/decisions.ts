import { Fault } from './faults.js';
import { InputReader } from './validate.js';

export type DecisionType =
  | 'ScheduleActivityTask' | 'RequestCancelActivityTask' | 'CompleteWorkflowExecution' | 'FailWorkflowExecution'
  | 'CancelWorkflowExecution' | 'ContinueAsNewWorkflowExecution' | 'RecordMarker' | 'StartTimer' | 'CancelTimer'
  | 'SignalExternalWorkflowExecution' | 'RequestCancelExternalWorkflowExecution' | 'StartChildWorkflowExecution'
  | 'ScheduleLambdaFunction';

/** Decisions this engine applies today; the others are refused whole, before anything is written. */
const SUPPORTED: ReadonlySet<string> = new Set([
  'ScheduleActivityTask', 'RequestCancelActivityTask', 'CompleteWorkflowExecution', 'FailWorkflowExecution',
  'CancelWorkflowExecution', 'RecordMarker', 'StartTimer', 'CancelTimer', 'ScheduleLambdaFunction',
]);
const ALL: ReadonlySet<string> = new Set([...SUPPORTED, 'ContinueAsNewWorkflowExecution', 'SignalExternalWorkflowExecution',
  'RequestCancelExternalWorkflowExecution', 'StartChildWorkflowExecution']);
export const CLOSE_DECISIONS: ReadonlySet<string> = new Set([
  'CompleteWorkflowExecution', 'FailWorkflowExecution', 'CancelWorkflowExecution', 'ContinueAsNewWorkflowExecution',
]);

export interface Decision {
  type: DecisionType;
  attrs: Record<string, any>;
}

const attrsName = (t: string) => `${t[0]!.toLowerCase()}${t.slice(1)}DecisionAttributes`;

/** `taskPriority`: a string holding a 32-bit integer, as for RegisterActivityType and StartWorkflowExecution. */
function readTaskPriority(r: InputReader): string | undefined {
  const v = r.str('taskPriority', { max: 11 });
  if (v !== undefined && !(/^-?\d+$/.test(v) && Number(v) >= -(2 ** 31) && Number(v) <= 2 ** 31 - 1)) r.problem('taskPriority', v, 'Member must be a 32-bit integer');
  return v;
}

function readAttrs(type: DecisionType, r: InputReader): Record<string, unknown> {
  switch (type) {
    case 'ScheduleActivityTask':
      return {
        activityType: r.type('activityType', true), activityId: r.id('activityId', true), control: r.data('control'),
        input: r.data('input'), scheduleToCloseTimeout: r.duration('scheduleToCloseTimeout', { allowNone: true }),
        taskList: r.taskList('taskList', false), taskPriority: readTaskPriority(r),
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
    if (!SUPPORTED.has(type)) d.problem('decisionType', type, 'decision type is not supported by this engine version yet');
    const attrs = d.struct(attrsName(type), type !== 'CompleteWorkflowExecution' && type !== 'FailWorkflowExecution' && type !== 'CancelWorkflowExecution',
      (a) => readAttrs(type, a)) ?? {};
    return { type, attrs };
  }) ?? [];
  r.done();
  const closeAt = out.findIndex((d) => CLOSE_DECISIONS.has(d.type));
  if (closeAt >= 0 && closeAt !== out.length - 1) throw new Fault('ValidationException', 'Close must be last decision in list');
  if (out.filter((d) => CLOSE_DECISIONS.has(d.type)).length > 1) throw new Fault('ValidationException', 'Close must be last decision in list');
  return out;
}
