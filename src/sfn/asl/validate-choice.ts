import { at, atIndex, type Problems } from './definition-problems.js';
import { isObj, isTimestamp, NOT_A_TIMESTAMP, pathProblem, requireFields, typed, type Obj } from './validate-values.js';

/** Choice rules: one comparison (Variable + one operator) or one And/Or/Not; Next only on top-level rules. */

type Operand = 'string' | 'number' | 'boolean' | 'timestamp';

const COMPARISONS: ReadonlyMap<string, Operand> = new Map([
  ...['Equals', 'LessThan', 'GreaterThan', 'LessThanEquals', 'GreaterThanEquals'].flatMap((op) => [
    [`String${op}`, 'string'], [`Numeric${op}`, 'number'], [`Timestamp${op}`, 'timestamp'],
  ] as [string, Operand][]),
  ['StringMatches', 'string'],
  ['BooleanEquals', 'boolean'],
  ...['IsNull', 'IsPresent', 'IsNumeric', 'IsString', 'IsBoolean', 'IsTimestamp'].map((op) => [op, 'boolean'] as [string, Operand]),
]);

/** Every operator except StringMatches and the Is* tests has a `…Path` twin whose operand is a path. */
const PATH_TWINS: ReadonlySet<string> = new Set(
  [...COMPARISONS.keys()].filter((op) => op !== 'StringMatches' && !op.startsWith('Is')).map((op) => `${op}Path`),
);

export const CHOICE_OPERATORS: readonly string[] = [...COMPARISONS.keys(), ...PATH_TWINS];

const COMBINATORS = ['And', 'Or', 'Not', 'Variable'] as const;

const operandOk: Record<Operand, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  timestamp: isTimestamp,
};

const operandName: Record<Operand, string> = {
  string: 'a STRING', number: 'a NUMBER', boolean: 'a BOOLEAN', timestamp: 'a valid RFC3339 timestamp',
};

/** The Choices array of a Choice state at `path` (`/States/C`); returns the Next names it transitions to. */
export function validateChoices(p: Problems, path: string, state: Obj): { next: string; path: string }[] {
  const targets: { next: string; path: string }[] = [];
  if (!requireFields(p, path, state, ['Choices']) || !typed(p, path, state, 'Choices', 'ARRAY')) return targets;
  const choices = state.Choices as unknown[];
  const choicesPath = at(path, 'Choices');
  if (choices.length === 0) p.schema(choicesPath, 'Value cannot be empty');
  choices.forEach((rule, i) => {
    const rulePath = atIndex(choicesPath, i);
    if (!isObj(rule)) {
      p.schema(rulePath, 'The value must be an OBJECT');
      return;
    }
    validateRule(p, rulePath, rule, true);
    if (requireFields(p, rulePath, rule, ['Next']) && typed(p, rulePath, rule, 'Next', 'STRING')) {
      targets.push({ next: rule.Next as string, path: at(rulePath, 'Next') });
    }
  });
  return targets;
}

function validateRule(p: Problems, path: string, rule: Obj, topLevel: boolean): void {
  // A JSONata rule: Condition (with Next, Assign, Output, Comment) is the whole rule.
  if (topLevel && rule.Condition !== undefined) return;
  const kinds = COMBINATORS.filter((k) => rule[k] !== undefined);
  if (kinds.length !== 1) {
    p.schema(path, `The object must have only one of the following fields: [${COMBINATORS.join(', ')}]`);
  }
  for (const key of Object.keys(rule)) {
    const known = key === 'Comment' || ((key === 'Next' || key === 'Assign' || key === 'Output') && topLevel) || (COMBINATORS as readonly string[]).includes(key)
      || COMPARISONS.has(key) || PATH_TWINS.has(key);
    if (!known) p.schema(path, `Field '${key}' is not supported`);
  }
  typed(p, path, rule, 'Comment', 'STRING');
  if (rule.Variable !== undefined) comparison(p, path, rule);
  else if (kinds.length === 1) operatorsWithoutVariable(p, path, rule);
  for (const k of ['And', 'Or'] as const) {
    if (rule[k] === undefined || !typed(p, path, rule, k, 'ARRAY')) continue;
    const list = rule[k] as unknown[];
    if (list.length === 0) p.schema(at(path, k), 'Value cannot be empty');
    list.forEach((sub, i) => nested(p, atIndex(at(path, k), i), sub));
  }
  if (rule.Not !== undefined) nested(p, at(path, 'Not'), rule.Not);
}

function nested(p: Problems, path: string, sub: unknown): void {
  if (isObj(sub)) validateRule(p, path, sub, false);
  else p.schema(path, 'The value must be an OBJECT');
}

function operatorsWithoutVariable(p: Problems, path: string, rule: Obj): void {
  const ops = Object.keys(rule).filter((k) => COMPARISONS.has(k) || PATH_TWINS.has(k));
  if (ops.length > 0) p.schema(path, `Field '${ops[0]}' needs a 'Variable'`);
}

function comparison(p: Problems, path: string, rule: Obj): void {
  if (typed(p, path, rule, 'Variable', 'STRING')) {
    const problem = pathProblem(rule.Variable as string, 'path');
    if (problem) p.schema(at(path, 'Variable'), problem);
  }
  const ops = Object.keys(rule).filter((k) => COMPARISONS.has(k) || PATH_TWINS.has(k));
  if (ops.length !== 1) {
    const found = ops.length === 0 ? 'none' : ops.join(', ');
    p.schema(path, `A comparison needs exactly one operator (found ${found})`);
  }
  for (const op of ops) {
    const v = rule[op];
    if (PATH_TWINS.has(op)) {
      const problem = typeof v === 'string' ? pathProblem(v, 'path') : `The value for the field '${op}' must be a STRING`;
      if (problem) p.schema(at(path, op), problem);
      continue;
    }
    const operand = COMPARISONS.get(op)!;
    if (operandOk[operand](v)) continue;
    p.schema(at(path, op), operand === 'timestamp' && typeof v === 'string' ? NOT_A_TIMESTAMP : `The value for the field '${op}' must be ${operandName[operand]}`);
  }
}
