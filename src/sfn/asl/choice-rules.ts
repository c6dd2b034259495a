import { Budget } from './bounds.js';
import { AslError } from './errors.js';
import { PathNotFoundError, hasPath, readPath } from './json-path.js';
import { compareInstants, parseTimestamp } from './timestamp.js';
import type { ChoiceRule } from './types.js';

type Family = 'String' | 'Numeric' | 'Timestamp';
type Relation = 'Equals' | 'LessThan' | 'GreaterThan' | 'LessThanEquals' | 'GreaterThanEquals';
const FAMILIES: readonly Family[] = ['String', 'Numeric', 'Timestamp'];
const RELATIONS: readonly Relation[] = ['Equals', 'LessThan', 'GreaterThan', 'LessThanEquals', 'GreaterThanEquals'];
const TYPE_TESTS = ['IsNull', 'IsPresent', 'IsNumeric', 'IsString', 'IsBoolean', 'IsTimestamp'] as const;

/** Every comparison operator a Choice rule may carry (exactly one per comparison). */
export const CHOICE_OPERATORS: readonly string[] = [
  ...FAMILIES.flatMap((f) => RELATIONS.flatMap((r) => [`${f}${r}`, `${f}${r}Path`])),
  'StringMatches',
  'BooleanEquals',
  'BooleanEqualsPath',
  ...TYPE_TESTS,
];
const OPERATOR_SET = new Set(CHOICE_OPERATORS);

function invalidPath(path: string): AslError {
  return new AslError('States.Runtime', `Invalid path '${path}': The choice state's condition path references an invalid value.`);
}

function read(path: string, input: unknown, ctx: unknown, budget: Budget): unknown {
  try {
    return readPath(input, path, ctx, budget.as('States.Runtime', `the JSONPath '${path}'`));
  } catch (e) {
    if (e instanceof PathNotFoundError) throw invalidPath(path);
    throw e;
  }
}

function holds(relation: Relation, cmp: number): boolean {
  switch (relation) {
    case 'Equals': return cmp === 0;
    case 'LessThan': return cmp < 0;
    case 'GreaterThan': return cmp > 0;
    case 'LessThanEquals': return cmp <= 0;
    case 'GreaterThanEquals': return cmp >= 0;
  }
}

/** Compares `value` with `operand` in a family; a value of the wrong type makes the comparison false. */
function compare(family: Family, relation: Relation, value: unknown, operand: unknown): boolean {
  if (family === 'Numeric') {
    if (typeof value !== 'number' || typeof operand !== 'number') return false;
    return holds(relation, value < operand ? -1 : value > operand ? 1 : 0);
  }
  if (family === 'String') {
    if (typeof value !== 'string' || typeof operand !== 'string') return false;
    return holds(relation, value < operand ? -1 : value > operand ? 1 : 0);
  }
  const a = parseTimestamp(value);
  const b = parseTimestamp(operand);
  return a !== null && b !== null && holds(relation, compareInstants(a, b));
}

/** The literal runs of a StringMatches pattern between its unescaped `*`s (`\*` and `\\` are literal). */
function literalRuns(pattern: string): string[] {
  const runs: string[] = [];
  let run = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i]!;
    if (ch === '\\' && (pattern[i + 1] === '*' || pattern[i + 1] === '\\')) run += pattern[++i];
    else if (ch === '*') {
      runs.push(run);
      run = '';
    } else run += ch;
  }
  runs.push(run);
  return runs;
}

/**
 * `*` matches any run of characters; `\*` is a literal star and `\\` a literal backslash. Matched
 * without a regular expression (`a*a*a*…b` would backtrack exponentially): the first run is a
 * prefix, the last a suffix, and each run between is found leftmost, which is enough for `*`.
 */
export function stringMatches(value: string, pattern: string): boolean {
  const runs = literalRuns(pattern);
  const first = runs[0]!;
  if (runs.length === 1) return value === first;
  const last = runs[runs.length - 1]!;
  if (first.length + last.length > value.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (let k = 1; k < runs.length - 1; k += 1) {
    const run = runs[k]!;
    const found = value.indexOf(run, at);
    if (found < 0 || found + run.length > end) return false;
    at = found + run.length;
  }
  return true;
}

function typeTest(op: (typeof TYPE_TESTS)[number], value: unknown): boolean {
  switch (op) {
    case 'IsNull': return value === null;
    case 'IsNumeric': return typeof value === 'number';
    case 'IsString': return typeof value === 'string';
    case 'IsBoolean': return typeof value === 'boolean';
    case 'IsTimestamp': return parseTimestamp(value) !== null;
    case 'IsPresent': return true;
  }
}

/** The budget of one Choice state's rules, all of them together. */
export function choiceBudget(): Budget {
  return Budget.start('States.Runtime', 'the Choice rules');
}

/**
 * Evaluates a Choice rule against the state's input (`$$` paths read `ctx`). A comparison whose
 * Variable (or `…Path` operand) matches nothing → States.Runtime, except IsPresent. Pass one
 * `budget` to every rule of a state, so that many rules cannot multiply the bounded work.
 */
export function evaluateChoiceRule(rule: ChoiceRule, input: unknown, ctx?: unknown, budget: Budget = choiceBudget()): boolean {
  if (rule.And !== undefined) return rule.And.every((r) => evaluateChoiceRule(r, input, ctx, budget));
  if (rule.Or !== undefined) return rule.Or.some((r) => evaluateChoiceRule(r, input, ctx, budget));
  if (rule.Not !== undefined) return !evaluateChoiceRule(rule.Not, input, ctx, budget);
  const op = Object.keys(rule).find((k) => OPERATOR_SET.has(k));
  const variable = rule.Variable;
  if (op === undefined || variable === undefined) {
    throw new AslError('States.Runtime', 'A choice rule needs a Variable and one comparison operator, or And, Or or Not.');
  }
  const operand = rule[op];
  if (op === 'IsPresent') return hasPath(input, variable, ctx, budget.as('States.Runtime', `the JSONPath '${variable}'`)) === operand;
  const value = read(variable, input, ctx, budget);
  if ((TYPE_TESTS as readonly string[]).includes(op)) return typeTest(op as (typeof TYPE_TESTS)[number], value) === operand;
  if (op === 'StringMatches') return typeof value === 'string' && typeof operand === 'string' && stringMatches(value, operand);
  const isPath = op.endsWith('Path');
  const against = isPath ? read(String(operand), input, ctx, budget) : operand;
  const base = isPath ? op.slice(0, -4) : op;
  if (base === 'BooleanEquals') return typeof value === 'boolean' && typeof against === 'boolean' && value === against;
  const family = FAMILIES.find((f) => base.startsWith(f))!;
  return compare(family, base.slice(family.length) as Relation, value, against);
}
