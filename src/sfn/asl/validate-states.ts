import { isFault } from '../../protocol/faults.js';
import { parseArn } from '../arns.js';
import { knownServiceResource } from '../integrations/known.js';
import { at, atIndex, type Problems } from './definition-problems.js';
import type { StateType } from './types.js';
import { validateChoices } from './validate-choice.js';
import { jsonataStateValues, outputScope } from './validate-jsonata-states.js';
import { languageFields, queryLanguageValue, stateQueryLanguage, type LanguageFields, type QueryLanguage } from './validate-query-language.js';
import { validateCatch, validateRetry } from './validate-retry-catch.js';
import {
  atMostOne, dynamicValueProblem, integerIn, isObj, isTimestamp, NOT_A_TIMESTAMP, onlyFields, pathField, pathProblem, payloadTemplate,
  requireFields, typed, type Obj,
} from './validate-values.js';
import { validateAssign } from './validate-variables.js';

/** One state's own members, by type. Transitions and nested graphs are checked by validate-graph.ts. */

export interface Transition { next: string; path: string }

export interface StateContext {
  problems: Problems;
  /** The state machine's query language (a state without its own inherits it, at any depth). */
  machine: QueryLanguage;
  /** Validates a nested StartAt/States graph (a Parallel branch, a Map's ItemProcessor) at `path`. */
  graph(value: unknown, path: string): void;
}

const FLOW = ['Next', 'End'];
const COMMON = ['Type', 'Comment', 'QueryLanguage'];

/** The members of each state type in either query language. */
const SHARED: Record<StateType, readonly string[]> = {
  Task: [...COMMON, ...FLOW, 'Assign', 'Retry', 'Catch', 'Resource', 'TimeoutSeconds', 'HeartbeatSeconds'],
  Pass: [...COMMON, ...FLOW, 'Assign'],
  Choice: [...COMMON, 'Assign', 'Choices', 'Default'],
  Wait: [...COMMON, ...FLOW, 'Assign', 'Seconds', 'Timestamp'],
  Succeed: COMMON,
  Fail: [...COMMON, 'Error', 'Cause'],
  Parallel: [...COMMON, ...FLOW, 'Assign', 'Retry', 'Catch', 'Branches'],
  Map: [...COMMON, ...FLOW, 'Assign', 'Retry', 'Catch', 'ItemProcessor', 'Iterator', 'ItemSelector', 'MaxConcurrency'],
};

const IO = ['InputPath', 'OutputPath'];
const RESULT = ['ResultPath', 'ResultSelector'];

/** The members only one language has, by state type. */
const ONLY: Record<StateType, { JSONPath: readonly string[]; JSONata: readonly string[] }> = {
  Task: { JSONPath: [...IO, ...RESULT, 'Parameters', 'TimeoutSecondsPath', 'HeartbeatSecondsPath'], JSONata: ['Arguments', 'Output'] },
  Pass: { JSONPath: [...IO, 'Result', 'Parameters', 'ResultPath'], JSONata: ['Output'] },
  Choice: { JSONPath: IO, JSONata: ['Output'] },
  Wait: { JSONPath: [...IO, 'SecondsPath', 'TimestampPath'], JSONata: ['Output'] },
  Succeed: { JSONPath: IO, JSONata: ['Output'] },
  Fail: { JSONPath: ['ErrorPath', 'CausePath'], JSONata: [] },
  Parallel: { JSONPath: [...IO, ...RESULT, 'Parameters'], JSONata: ['Arguments', 'Output'] },
  Map: { JSONPath: [...IO, ...RESULT, 'ItemsPath', 'Parameters', 'MaxConcurrencyPath'], JSONata: ['Items', 'Output'] },
};

function byType<T>(f: (t: StateType) => T): Record<StateType, T> {
  return Object.fromEntries((Object.keys(SHARED) as StateType[]).map((t) => [t, f(t)])) as unknown as Record<StateType, T>;
}

const LANGUAGE_FIELDS = byType<LanguageFields>((t) => ({ JSONPath: new Set(ONLY[t].JSONPath), JSONata: new Set(ONLY[t].JSONata) }));
const FIELDS = byType<ReadonlySet<string>>((t) => new Set([...SHARED[t], ...ONLY[t].JSONPath, ...ONLY[t].JSONata]));

/** In the order AWS lists them. */
export const STATE_TYPES: readonly StateType[] = ['Task', 'Wait', 'Pass', 'Succeed', 'Fail', 'Choice', 'Parallel', 'Map'];

export function isStateType(t: unknown): t is StateType {
  return typeof t === 'string' && Object.hasOwn(FIELDS, t);
}

/** Checks one state of a known type at `path` (`/States/X`); returns its outgoing transitions. */
export function validateState(ctx: StateContext, path: string, type: StateType, s: Obj): Transition[] {
  const p = ctx.problems;
  const language = stateQueryLanguage(ctx.machine, s);
  onlyFields(p, path, s, FIELDS[type]);
  languageFields(p, path, s, language, LANGUAGE_FIELDS[type], ctx.machine);
  typed(p, path, s, 'Comment', 'STRING');
  queryLanguageValue(p, path, s);
  if (language === 'JSONPath') jsonPathValues(p, path, s, FIELDS[type]);
  else jsonataStateValues(p, path, type, s);
  if (FIELDS[type].has('Assign')) validateAssign(p, path, s, language, outputScope(type));
  const out: Transition[] = FIELDS[type].has('Next') ? nextOrEnd(p, path, s) : [];
  if (FIELDS[type].has('Retry')) {
    validateRetry(p, path, s);
    out.push(...validateCatch(p, path, s, language));
  }
  switch (type) {
    case 'Task': task(p, path, s, language); break;
    case 'Choice':
      out.push(...validateChoices(p, path, s, language));
      if (typed(p, path, s, 'Default', 'STRING') && s.Default !== undefined) out.push({ next: s.Default as string, path: at(path, 'Default') });
      break;
    case 'Wait': wait(p, path, s, language); break;
    case 'Fail': if (language === 'JSONPath') fail(p, path, s); break;
    case 'Parallel': parallel(ctx, path, s); break;
    case 'Map': map(ctx, path, s, language); break;
    default: break;
  }
  return out;
}

/** The JSONPath members every state type may have: paths and payload templates (with variables). */
function jsonPathValues(p: Problems, path: string, s: Obj, fields: ReadonlySet<string>): void {
  pathField(p, path, s, 'InputPath', 'path', true);
  pathField(p, path, s, 'OutputPath', 'path', true);
  pathField(p, path, s, 'ResultPath', 'result', true);
  for (const key of ['Parameters', 'ResultSelector', 'ItemSelector']) {
    if (fields.has(key)) payloadTemplate(p, path, s, key);
  }
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

function task(p: Problems, path: string, s: Obj, language: QueryLanguage): void {
  if (requireFields(p, path, s, ['Resource']) && typed(p, path, s, 'Resource', 'STRING')) resource(p, at(path, 'Resource'), s.Resource as string);
  const pairs = [['TimeoutSeconds', 'TimeoutSecondsPath'], ['HeartbeatSeconds', 'HeartbeatSecondsPath']] as const;
  // A JSONata Task's numbers may be expressions (validate-jsonata-states.ts).
  for (const [seconds, secondsPath] of language === 'JSONPath' ? pairs : []) {
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
// Any other ARN a Task could name (Lambda functions, HTTP endpoints).
const ANY_ARN = /^arn:aws(?:-[a-z]+)*:[a-z0-9-]+:[a-z0-9-]*:(\d{12})?:.+$/;
// A service integration's form (`arn:aws:states:::<service>:<action>[.<pattern>]`, or ActorFlow's own).
const SERVICE_FORM = /^arn:(?:aws(?:-[a-z]+)*|actorflow):states:::/;
const NOT_RECOGNIZED = (arn: string) => `The resource provided ${arn} is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.`;

/** An activity, or a service integration (action and pattern) the table in integrations/known.ts lists. */
function resource(p: Problems, path: string, arn: string): void {
  if (SERVICE_FORM.test(arn)) {
    // AWS refuses an integration it does not have (or a pattern the action lacks) with its schema wording.
    if (!knownServiceResource(arn)) p.schema(path, NOT_RECOGNIZED(arn));
    return;
  }
  try {
    parseArn(arn, 'activity', 'Resource');
  } catch (e) {
    if (!isFault(e, 'InvalidArn')) throw e;
    if (!ACTIVITY_ARN.test(arn) && ANY_ARN.test(arn)) {
      p.add('INVALID_RESOURCE', path, `Resource '${arn}' is not supported: ActorFlow runs activities and the service integrations it lists (arn:aws:states:::<service>:<action>)`);
    } else {
      p.schema(path, NOT_RECOGNIZED(arn));
    }
  }
}

function wait(p: Problems, path: string, s: Obj, language: QueryLanguage): void {
  if (language === 'JSONata') {
    // SecondsPath/TimestampPath are refused as JSONPath fields; they still count as a duration here.
    const kinds = ['Seconds', 'Timestamp'];
    if (atMostOne(p, path, s, kinds) === 0 && s.SecondsPath === undefined && s.TimestampPath === undefined) {
      p.schema(path, `Exactly one of these fields is required: [${kinds.join(', ')}]`);
    }
    return;
  }
  const kinds = ['Seconds', 'Timestamp', 'SecondsPath', 'TimestampPath'];
  if (atMostOne(p, path, s, kinds) === 0) p.schema(path, `Exactly one of these fields is required: [${kinds.join(', ')}]`);
  integerIn(p, path, s, 'Seconds', 0);
  if (s.Timestamp !== undefined && !isTimestamp(s.Timestamp)) p.schema(at(path, 'Timestamp'), NOT_A_TIMESTAMP);
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

function map(ctx: StateContext, path: string, s: Obj, language: QueryLanguage): void {
  const p = ctx.problems;
  if (language === 'JSONPath') {
    pathField(p, path, s, 'ItemsPath', 'reference');
    atMostOne(p, path, s, ['ItemSelector', 'Parameters']);
    atMostOne(p, path, s, ['MaxConcurrency', 'MaxConcurrencyPath']);
    integerIn(p, path, s, 'MaxConcurrency', 0, Number.MAX_SAFE_INTEGER);
    pathField(p, path, s, 'MaxConcurrencyPath', 'reference');
  }
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
