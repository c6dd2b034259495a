import { isFault } from '../../protocol/faults.js';
import { parseArn } from '../arns.js';
import { at, atIndex, type Problems } from './definition-problems.js';
import type { StateType } from './types.js';
import { validateChoices } from './validate-choice.js';
import { validateCatch, validateRetry } from './validate-retry-catch.js';
import {
  atMostOne, dynamicValueProblem, integerIn, isExpression, isObj, isTimestamp, NOT_A_TIMESTAMP, onlyFields, pathField, pathProblem, payloadTemplate, queryLanguage,
  requireFields, typed, type Obj,
} from './validate-values.js';

/** One state's own members, by type. Transitions and nested graphs are checked by validate-graph.ts. */

export interface Transition { next: string; path: string }

export interface StateContext {
  problems: Problems;
  /** Validates a nested StartAt/States graph (a Parallel branch, a Map's ItemProcessor) at `path`. */
  graph(value: unknown, path: string): void;
}

const IO = ['InputPath', 'OutputPath', 'Output'];
const VARS = ['Assign'];
const FLOW = ['Next', 'End'];
const RESULT = ['ResultPath', 'ResultSelector', 'Retry', 'Catch'];

const FIELDS: Record<StateType, ReadonlySet<string>> = {
  Task: new Set(['Type', 'Comment', 'QueryLanguage', ...FLOW, ...IO, ...VARS, ...RESULT, 'Resource', 'Parameters', 'Arguments',
    'TimeoutSeconds', 'TimeoutSecondsPath', 'HeartbeatSeconds', 'HeartbeatSecondsPath']),
  Pass: new Set(['Type', 'Comment', 'QueryLanguage', ...FLOW, ...IO, ...VARS, 'Result', 'Parameters', 'ResultPath']),
  Choice: new Set(['Type', 'Comment', 'QueryLanguage', ...IO, ...VARS, 'Choices', 'Default']),
  Wait: new Set(['Type', 'Comment', 'QueryLanguage', ...FLOW, ...IO, ...VARS, 'Seconds', 'Timestamp', 'SecondsPath', 'TimestampPath']),
  Succeed: new Set(['Type', 'Comment', 'QueryLanguage', ...IO]),
  Fail: new Set(['Type', 'Comment', 'QueryLanguage', 'Error', 'Cause', 'ErrorPath', 'CausePath']),
  Parallel: new Set(['Type', 'Comment', 'QueryLanguage', ...FLOW, ...IO, ...VARS, ...RESULT, 'Branches', 'Parameters', 'Arguments']),
  Map: new Set(['Type', 'Comment', 'QueryLanguage', ...FLOW, ...IO, ...VARS, ...RESULT, 'ItemProcessor', 'Iterator', 'ItemsPath', 'Items',
    'ItemSelector', 'Parameters', 'MaxConcurrency', 'MaxConcurrencyPath']),
};

/** In the order AWS lists them. */
export const STATE_TYPES: readonly StateType[] = ['Task', 'Wait', 'Pass', 'Succeed', 'Fail', 'Choice', 'Parallel', 'Map'];

export function isStateType(t: unknown): t is StateType {
  return typeof t === 'string' && Object.hasOwn(FIELDS, t);
}

/** Checks one state of a known type at `path` (`/States/X`); returns its outgoing transitions. */
export function validateState(ctx: StateContext, path: string, type: StateType, s: Obj): Transition[] {
  const p = ctx.problems;
  onlyFields(p, path, s, FIELDS[type]);
  typed(p, path, s, 'Comment', 'STRING');
  queryLanguage(p, path, s);
  pathField(p, path, s, 'InputPath', 'path', true);
  pathField(p, path, s, 'OutputPath', 'path', true);
  pathField(p, path, s, 'ResultPath', 'result', true);
  for (const key of ['Parameters', 'ResultSelector', 'ItemSelector']) {
    if (FIELDS[type].has(key)) payloadTemplate(p, path, s, key);
  }
  const out: Transition[] = FIELDS[type].has('Next') ? nextOrEnd(p, path, s) : [];
  if (FIELDS[type].has('Retry')) {
    validateRetry(p, path, s);
    out.push(...validateCatch(p, path, s));
  }
  switch (type) {
    case 'Task': task(p, path, s); break;
    case 'Choice':
      out.push(...validateChoices(p, path, s));
      if (typed(p, path, s, 'Default', 'STRING') && s.Default !== undefined) out.push({ next: s.Default as string, path: at(path, 'Default') });
      break;
    case 'Wait': wait(p, path, s); break;
    case 'Fail': fail(p, path, s); break;
    case 'Parallel': parallel(ctx, path, s); break;
    case 'Map': map(ctx, path, s); break;
    default: break;
  }
  return out;
}

function nextOrEnd(p: Problems, path: string, s: Obj): Transition[] {
  typed(p, path, s, 'End', 'BOOLEAN');
  if (s.Next !== undefined && s.End !== undefined) {
    p.schema(path, 'There should only be one of the following fields: [Next, End]');
  } else if (s.Next === undefined && s.End !== true) {
    p.schema(path, s.End === undefined ? 'One of these fields is required: [Next, End]' : "The value for the field 'End' must be true");
  }
  return s.Next !== undefined && typed(p, path, s, 'Next', 'STRING') ? [{ next: s.Next as string, path: at(path, 'Next') }] : [];
}

function task(p: Problems, path: string, s: Obj): void {
  if (requireFields(p, path, s, ['Resource']) && typed(p, path, s, 'Resource', 'STRING')) resource(p, at(path, 'Resource'), s.Resource as string);
  for (const [seconds, secondsPath] of [['TimeoutSeconds', 'TimeoutSecondsPath'], ['HeartbeatSeconds', 'HeartbeatSecondsPath']] as const) {
    atMostOne(p, path, s, [seconds, secondsPath]);
    integerIn(p, path, s, seconds, 1);
    pathField(p, path, s, secondsPath, 'reference');
  }
  const { TimeoutSeconds: timeout, HeartbeatSeconds: heartbeat } = s;
  if (typeof timeout === 'number' && typeof heartbeat === 'number' && heartbeat >= timeout) {
    p.schema(at(path, 'HeartbeatSeconds'), "The value for the field 'HeartbeatSeconds' must be smaller than the value for the field 'TimeoutSeconds'");
  }
}

const ACTIVITY_ARN = /^arn:[^:]*:states:[^:]*:[^:]*:activity:/;
// Any other ARN a Task could name (Lambda, service integrations `arn:aws:states:::…`, HTTP endpoints).
const ANY_ARN = /^arn:aws(?:-[a-z]+)*:[a-z0-9-]+:[a-z0-9-]*:(\d{12})?:.+$/;

function resource(p: Problems, path: string, arn: string): void {
  try {
    parseArn(arn, 'activity', 'Resource');
  } catch (e) {
    if (!isFault(e, 'InvalidArn')) throw e;
    if (!ACTIVITY_ARN.test(arn) && ANY_ARN.test(arn)) {
      p.add('INVALID_RESOURCE', path, `Resource '${arn}' is not supported: ActorFlow runs activity Task states only (arn:aws:states:<region>:<account>:activity:<name>)`);
    } else {
      p.schema(path, `The resource provided ${arn} is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.`);
    }
  }
}

function wait(p: Problems, path: string, s: Obj): void {
  const kinds = ['Seconds', 'Timestamp', 'SecondsPath', 'TimestampPath'];
  if (atMostOne(p, path, s, kinds) === 0) p.schema(path, `Exactly one of these fields is required: [${kinds.join(', ')}]`);
  integerIn(p, path, s, 'Seconds', 0);
  if (s.Timestamp !== undefined && !isExpression(s.Timestamp) && !isTimestamp(s.Timestamp)) p.schema(at(path, 'Timestamp'), NOT_A_TIMESTAMP);
  pathField(p, path, s, 'SecondsPath', 'reference');
  pathField(p, path, s, 'TimestampPath', 'reference');
}

function fail(p: Problems, path: string, s: Obj): void {
  for (const [value, valuePath] of [['Error', 'ErrorPath'], ['Cause', 'CausePath']] as const) {
    atMostOne(p, path, s, [value, valuePath]);
    typed(p, path, s, value, 'STRING');
    // ErrorPath/CausePath: a reference path or an intrinsic function call.
    if (s[valuePath] === undefined) continue;
    const v = s[valuePath];
    if (typeof v === 'string' && !v.trimStart().startsWith('States.')) {
      const problem = pathProblem(v, 'reference');
      if (problem) p.schema(at(path, valuePath), problem);
      continue;
    }
    const problem = dynamicValueProblem(v);
    if (problem) p.schema(at(path, valuePath), `The value for the field '${valuePath}' ${problem}`);
  }
}

const GRAPH_FIELDS = new Set(['StartAt', 'States', 'Comment']);
const PROCESSOR_FIELDS = new Set([...GRAPH_FIELDS, 'ProcessorConfig']);

function parallel(ctx: StateContext, path: string, s: Obj): void {
  const p = ctx.problems;
  if (!requireFields(p, path, s, ['Branches']) || !typed(p, path, s, 'Branches', 'ARRAY')) return;
  const branches = s.Branches as unknown[];
  if (branches.length === 0) p.schema(at(path, 'Branches'), 'Value cannot be empty');
  branches.forEach((b, i) => {
    const branchPath = atIndex(at(path, 'Branches'), i);
    if (isObj(b)) onlyFields(p, branchPath, b, GRAPH_FIELDS);
    ctx.graph(b, branchPath);
  });
}

function map(ctx: StateContext, path: string, s: Obj): void {
  const p = ctx.problems;
  pathField(p, path, s, 'ItemsPath', 'reference');
  atMostOne(p, path, s, ['ItemSelector', 'Parameters']);
  atMostOne(p, path, s, ['MaxConcurrency', 'MaxConcurrencyPath']);
  integerIn(p, path, s, 'MaxConcurrency', 0, Number.MAX_SAFE_INTEGER);
  pathField(p, path, s, 'MaxConcurrencyPath', 'reference');
  const present = atMostOne(p, path, s, ['ItemProcessor', 'Iterator']);
  if (present === 0) {
    p.schema(path, 'These fields are required: [ItemProcessor]');
    return;
  }
  const key = s.ItemProcessor !== undefined ? 'ItemProcessor' : 'Iterator';
  const processor = s[key];
  const processorPath = at(path, key);
  if (isObj(processor)) {
    // AWS takes ProcessorConfig in the legacy Iterator too.
    onlyFields(p, processorPath, processor, PROCESSOR_FIELDS);
    processorConfig(p, processorPath, processor);
  }
  ctx.graph(processor, processorPath);
}

function processorConfig(p: Problems, path: string, processor: Obj): void {
  if (processor.ProcessorConfig === undefined || !typed(p, path, processor, 'ProcessorConfig', 'OBJECT')) return;
  const config = processor.ProcessorConfig as Obj;
  const configPath = at(path, 'ProcessorConfig');
  onlyFields(p, configPath, config, new Set(['Mode']));
  if (config.Mode !== undefined && config.Mode !== 'INLINE') {
    p.schema(at(configPath, 'Mode'), config.Mode === 'DISTRIBUTED'
      ? 'Distributed Map is not supported: ActorFlow runs Map states in INLINE mode only'
      : 'Value should be one of the following: [INLINE, DISTRIBUTED]');
  }
}
