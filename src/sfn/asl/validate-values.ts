import { at, atIndex, type Problems } from './definition-problems.js';
import { parseIntrinsic } from './intrinsics.js';
import { isReferencePath, parsePath } from './json-path.js';
import { parseTimestamp } from './timestamp.js';

/** Field-level checks shared by every state type: member sets, JSON types, numbers, paths, payload templates. */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every member of `obj` outside `allowed` ("Field 'X' is not supported", reported at the object, as AWS does). */
export function onlyFields(p: Problems, path: string, obj: Obj, allowed: ReadonlySet<string>): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) p.schema(path, `Field '${key}' is not supported`);
  }
}

/** Members that must be present. */
export function requireFields(p: Problems, path: string, obj: Obj, names: readonly string[]): boolean {
  const missing = names.filter((n) => obj[n] === undefined);
  if (missing.length > 0) p.schema(path, `These fields are required: [${missing.join(', ')}]`);
  return missing.length === 0;
}

/** At most one of `names` may be present; returns how many are. */
export function atMostOne(p: Problems, path: string, obj: Obj, names: readonly string[]): number {
  const present = names.filter((n) => obj[n] !== undefined);
  if (present.length > 1) p.schema(at(path, present[1]!), `There should only be one of the following fields: [${names.join(', ')}]`);
  return present.length;
}

type JsonType = 'STRING' | 'BOOLEAN' | 'OBJECT' | 'ARRAY' | 'NUMBER' | 'INTEGER';

function hasType(v: unknown, t: JsonType): boolean {
  switch (t) {
    case 'STRING': return typeof v === 'string';
    case 'BOOLEAN': return typeof v === 'boolean';
    case 'OBJECT': return isObj(v);
    case 'ARRAY': return Array.isArray(v);
    case 'NUMBER': return typeof v === 'number' && Number.isFinite(v);
    case 'INTEGER': return Number.isSafeInteger(v);
  }
}

/** An optional member of one JSON type (absent → true). */
export function typed(p: Problems, path: string, obj: Obj, key: string, t: JsonType): boolean {
  const v = obj[key];
  if (v === undefined || hasType(v, t)) return true;
  p.schema(at(path, key), `The value for the field '${key}' must be ${t === 'INTEGER' || t === 'ARRAY' || t === 'OBJECT' ? 'an' : 'a'} ${t}`);
  return false;
}

/** An optional integer within [min, max] (AWS: `Minimum value is 0`, `Maximum value is 99999999`). */
export function integerIn(p: Problems, path: string, obj: Obj, key: string, min: number, max = 99_999_999): void {
  if (obj[key] === undefined || isExpression(obj[key]) || !typed(p, path, obj, key, 'INTEGER')) return;
  const v = obj[key] as number;
  if (v < min) p.schema(at(path, key), `Minimum value is ${min}`);
  else if (v > max) p.schema(at(path, key), `Maximum value is ${max}`);
}

export type PathKind =
  /** Any JSONPath (InputPath, OutputPath, Choice Variable and …Path operands). */
  | 'path'
  /** A path naming a single node (…SecondsPath, TimestampPath, ItemsPath, MaxConcurrencyPath). */
  | 'reference'
  /** A reference path into the state's input, never the context object (ResultPath). */
  | 'result';

/** What is wrong with a path value, in AWS's words (`Value must be a valid JSONPath.`, `Value is not a Reference Path`). */
export function pathProblem(value: string, kind: PathKind): string | undefined {
  if (kind === 'path') return parsePath(value) === null ? 'Value must be a valid JSONPath.' : undefined;
  if (!isReferencePath(value)) return 'Value is not a Reference Path';
  if (kind === 'result' && value.startsWith('$$')) return 'Value is not a Reference Path into the state input (the context object cannot be written)';
  return undefined;
}

/** An optional path member; `nullable` for InputPath/OutputPath/ResultPath, where null means "discard". */
export function pathField(p: Problems, path: string, obj: Obj, key: string, kind: PathKind, nullable = false): void {
  const v = obj[key];
  if (v === undefined || (v === null && nullable)) return;
  if (!typed(p, path, obj, key, 'STRING') || v === null) return;
  const problem = pathProblem(v as string, kind);
  if (problem) p.schema(at(path, key), problem);
}

/** A `.$` value: a path (`$…`, `$$…`) or an intrinsic function call (`States.…(…)`). */
export function dynamicValueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a STRING';
  if (value.trimStart().startsWith('States.')) {
    return parseIntrinsic(value) === null
      ? 'must be a valid intrinsic function call (a known States.* function with the right number of valid arguments)'
      : undefined;
  }
  return parsePath(value) === null ? 'must be a valid JSONPath or a valid intrinsic function call' : undefined;
}

/** Parameters, ResultSelector, ItemSelector: a JSON object whose `….$` members hold paths or intrinsics. */
export function payloadTemplate(p: Problems, path: string, obj: Obj, key: string): void {
  const v = obj[key];
  if (v === undefined || !typed(p, path, obj, key, 'OBJECT')) return;
  walkTemplate(p, at(path, key), v);
}

function walkTemplate(p: Problems, path: string, v: unknown): void {
  if (Array.isArray(v)) {
    v.forEach((item, i) => walkTemplate(p, atIndex(path, i), item));
    return;
  }
  if (!isObj(v)) return;
  for (const [k, item] of Object.entries(v)) {
    if (k.endsWith('.$')) {
      const problem = dynamicValueProblem(item);
      if (problem) p.schema(at(path, k), `The value for the field '${k}' ${problem}`);
    } else {
      walkTemplate(p, at(path, k), item);
    }
  }
}

/** An RFC 3339 timestamp as Step Functions accepts it (the evaluator's own reading, so both agree). */
export function isTimestamp(s: unknown): boolean {
  return parseTimestamp(s) !== null;
}

/** AWS's text for a Timestamp (Wait) or Timestamp… operand (Choice) that is not one. */
export const NOT_A_TIMESTAMP = 'String does not match RFC3339 timestamp';

/** `QueryLanguage` (top level or per state). */
export function queryLanguage(p: Problems, path: string, obj: Obj): void {
  const v = obj.QueryLanguage;
  if (v === undefined || v === 'JSONPath' || v === 'JSONata') return;
  p.schema(at(path, 'QueryLanguage'), 'Value should be one of the following: [JSONPath, JSONata]');
}

/** A JSONata expression string (`{% … %}`), which a JSONata state may give where a number or timestamp goes. */
export function isExpression(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith('{%') && v.endsWith('%}');
}
