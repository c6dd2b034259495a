import { at, atIndex, type Problems } from './definition-problems.js';
import { ERROR_SCOPE, jsonataValue } from './validate-jsonata.js';
import { languageFields, type LanguageFields, type QueryLanguage } from './validate-query-language.js';
import { integerIn, isObj, onlyFields, pathField, requireFields, typed, type Obj } from './validate-values.js';
import { validateAssign } from './validate-variables.js';

/** Retry and Catch of Task, Parallel and Map states. */

/** The predefined error names; any other name starting with `States.` is reserved. */
export const PREDEFINED_ERRORS: ReadonlySet<string> = new Set([
  'States.ALL', 'States.DataLimitExceeded', 'States.Runtime', 'States.HeartbeatTimeout', 'States.Timeout',
  'States.TaskFailed', 'States.Permissions', 'States.ResultPathMatchFailure', 'States.ParameterPathFailure',
  'States.QueryEvaluationError', 'States.BranchFailed', 'States.NoChoiceMatched', 'States.IntrinsicFailure',
  'States.ExceedToleratedFailureThreshold', 'States.ItemReaderFailed', 'States.ResultWriterFailed',
  'States.Http.Socket',
]);
/** The HTTP task's status errors, `States.Http.StatusCode.404` and the like: predefined too. */
const HTTP_STATUS_ERROR = /^States\.Http\.StatusCode\.[1-5]\d\d$/;

const RETRIER_FIELDS = new Set(['ErrorEquals', 'IntervalSeconds', 'MaxAttempts', 'BackoffRate', 'MaxDelaySeconds', 'JitterStrategy', 'Comment']);
const CATCHER_FIELDS = new Set(['ErrorEquals', 'Next', 'Comment', 'Assign', 'ResultPath', 'Output']);
const CATCHER_LANGUAGE: LanguageFields = { JSONPath: new Set(['ResultPath']), JSONata: new Set(['Output']) };

export function validateRetry(p: Problems, path: string, state: Obj): void {
  eachEntry(p, path, state, 'Retry', (entryPath, r) => {
    onlyFields(p, entryPath, r, RETRIER_FIELDS);
    integerIn(p, entryPath, r, 'IntervalSeconds', 1);
    integerIn(p, entryPath, r, 'MaxAttempts', 0);
    integerIn(p, entryPath, r, 'MaxDelaySeconds', 1, 31_622_400);
    if (typed(p, entryPath, r, 'BackoffRate', 'NUMBER') && (r.BackoffRate as number) < 1) {
      p.schema(at(entryPath, 'BackoffRate'), 'Minimum value is 1.0');
    }
    if (typed(p, entryPath, r, 'JitterStrategy', 'STRING') && r.JitterStrategy !== undefined && r.JitterStrategy !== 'FULL' && r.JitterStrategy !== 'NONE') {
      p.schema(at(entryPath, 'JitterStrategy'), 'Value should be one of the following: [NONE, FULL]');
    }
  });
}

/**
 * Validates Catch (of a state in `language`) and returns the Next names it transitions to. A
 * catcher's Assign and Output see `$states.errorOutput` and assign in the state's own scope.
 */
export function validateCatch(p: Problems, path: string, state: Obj, language: QueryLanguage): { next: string; path: string }[] {
  const targets: { next: string; path: string }[] = [];
  eachEntry(p, path, state, 'Catch', (entryPath, c) => {
    onlyFields(p, entryPath, c, CATCHER_FIELDS);
    languageFields(p, entryPath, c, language, CATCHER_LANGUAGE);
    if (language === 'JSONPath') pathField(p, entryPath, c, 'ResultPath', 'result', true);
    else if (c.Output !== undefined) jsonataValue(p, at(entryPath, 'Output'), c.Output, ERROR_SCOPE);
    validateAssign(p, entryPath, c, language, ERROR_SCOPE);
    if (requireFields(p, entryPath, c, ['Next']) && typed(p, entryPath, c, 'Next', 'STRING')) {
      targets.push({ next: c.Next as string, path: at(entryPath, 'Next') });
    }
  });
  return targets;
}

function eachEntry(p: Problems, path: string, state: Obj, key: 'Retry' | 'Catch', check: (entryPath: string, entry: Obj) => void): void {
  if (state[key] === undefined || !typed(p, path, state, key, 'ARRAY')) return;
  const entries = state[key] as unknown[];
  entries.forEach((entry, i) => {
    const entryPath = atIndex(at(path, key), i);
    if (!isObj(entry)) {
      p.schema(entryPath, 'The value must be an OBJECT');
      return;
    }
    if (requireFields(p, entryPath, entry, ['ErrorEquals'])) errorEquals(p, entryPath, entry, i === entries.length - 1);
    check(entryPath, entry);
  });
}

function errorEquals(p: Problems, path: string, entry: Obj, last: boolean): void {
  if (!typed(p, path, entry, 'ErrorEquals', 'ARRAY')) return;
  const names = entry.ErrorEquals as unknown[];
  const listPath = at(path, 'ErrorEquals');
  if (names.length === 0) p.schema(listPath, 'Value cannot be empty');
  if (names.includes('States.ALL') && (names.length > 1 || !last)) {
    p.schema(listPath, 'States.ALL must appear alone and at end of list');
  }
  names.forEach((name, i) => {
    if (typeof name !== 'string') p.schema(atIndex(listPath, i), 'The value must be a STRING');
    else if (name.startsWith('States.') && !PREDEFINED_ERRORS.has(name) && !HTTP_STATUS_ERROR.test(name)) {
      p.schema(atIndex(listPath, i), `'${name}' is not a predefined error name; custom error names must not start with 'States.'`);
    }
  });
}
