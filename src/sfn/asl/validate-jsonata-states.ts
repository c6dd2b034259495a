import { at, type Problems } from './definition-problems.js';
import type { StateType } from './types.js';
import { INPUT_SCOPE, isJsonataExpression, jsonataString, jsonataValue, RESULT_SCOPE, type ExpressionScope } from './validate-jsonata.js';
import { integerIn, isObj, isTimestamp, NOT_A_TIMESTAMP, typed, type Obj } from './validate-values.js';

/**
 * The members of a JSONata state whose values may be `{% %}` expressions: Arguments, Output,
 * Items, ItemSelector, the numbers (TimeoutSeconds, HeartbeatSeconds, Wait Seconds,
 * MaxConcurrency: an integer in range or an expression), Wait Timestamp (an RFC 3339 string or an
 * expression) and Fail Error/Cause (a string or an expression). Assign is validate-variables.ts's.
 */

/** The states whose Output and Assign see `$states.result` (the raw result of the work they did). */
export const RESULT_STATES: ReadonlySet<StateType> = new Set(['Task', 'Parallel', 'Map']);

/** The scope of a state's own Output and Assign. */
export function outputScope(type: StateType): ExpressionScope {
  return RESULT_STATES.has(type) ? RESULT_SCOPE : INPUT_SCOPE;
}

/** Checks the JSONata-valued members of a state of `type` at `path`. */
export function jsonataStateValues(p: Problems, path: string, type: StateType, s: Obj): void {
  if (s.Output !== undefined) jsonataValue(p, at(path, 'Output'), s.Output, outputScope(type));
  objectOrExpression(p, path, s, 'Arguments');
  switch (type) {
    case 'Task':
      integerOrExpression(p, path, s, 'TimeoutSeconds', 1);
      integerOrExpression(p, path, s, 'HeartbeatSeconds', 1);
      break;
    case 'Wait':
      integerOrExpression(p, path, s, 'Seconds', 0);
      if (isJsonataExpression(s.Timestamp)) jsonataString(p, at(path, 'Timestamp'), s.Timestamp, INPUT_SCOPE);
      else if (s.Timestamp !== undefined && !isTimestamp(s.Timestamp)) p.schema(at(path, 'Timestamp'), NOT_A_TIMESTAMP);
      break;
    case 'Fail':
      for (const key of ['Error', 'Cause']) {
        if (typed(p, path, s, key, 'STRING') && typeof s[key] === 'string') jsonataString(p, at(path, key), s[key], INPUT_SCOPE);
      }
      break;
    case 'Map':
      items(p, path, s);
      objectOrExpression(p, path, s, 'ItemSelector');
      integerOrExpression(p, path, s, 'MaxConcurrency', 0, Number.MAX_SAFE_INTEGER);
      break;
    default: break;
  }
}

/** An integer in [min, max], or a JSONata expression (whose value is checked when it runs). */
function integerOrExpression(p: Problems, path: string, s: Obj, key: string, min: number, max?: number): void {
  if (isJsonataExpression(s[key])) jsonataString(p, at(path, key), s[key], INPUT_SCOPE);
  else integerIn(p, path, s, key, min, max);
}

/** Arguments, ItemSelector: a JSON object (its strings may be expressions) or one expression. */
function objectOrExpression(p: Problems, path: string, s: Obj, key: string): void {
  const v = s[key];
  if (v === undefined) return;
  if (isObj(v) || isJsonataExpression(v)) jsonataValue(p, at(path, key), v, INPUT_SCOPE);
  else p.schema(at(path, key), `The value for the field '${key}' must be an OBJECT or a JSONata expression`);
}

/** Map Items: a JSON array, a JSON object or an expression (that must give one of them). */
function items(p: Problems, path: string, s: Obj): void {
  const v = s.Items;
  if (v === undefined) return;
  if (Array.isArray(v) || isObj(v) || isJsonataExpression(v)) jsonataValue(p, at(path, 'Items'), v, INPUT_SCOPE);
  else p.schema(at(path, 'Items'), "The value for the field 'Items' must be an ARRAY, an OBJECT or a JSONata expression");
}
