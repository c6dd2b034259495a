import jsonata from 'jsonata';
import { at, atIndex, type Problems } from './definition-problems.js';
import { otherLanguageField } from './validate-query-language.js';
import { isObj } from './validate-values.js';

/**
 * JSONata expressions in the fields of JSONata states, checked as ValidateStateMachineDefinition
 * checks them: a string is an expression when it starts with `{%` and ends with `%}` (no space
 * outside); one opened but not closed is refused; an expression must parse (with the official
 * `jsonata` parser: INVALID_JSONATA_EXPRESSION and the parser's message, without its `S0xxx`
 * code), and it may not read the context item (a JSONata state has none: the input is
 * `$states.input`, a variable is `$name`), `$$`, or a `$states` field the field cannot see
 * (`$states.result` outside a Task/Parallel/Map's Output and Assign, `$states.errorOutput`
 * outside a catcher's): UNSUPPORTED_JSONATA_EXPRESSION.
 */

/** Which `$states` fields an expression may read, beyond `input` and `context`. */
export interface ExpressionScope {
  result: boolean;
  errorOutput: boolean;
}

export const INPUT_SCOPE: ExpressionScope = Object.freeze({ result: false, errorOutput: false });
export const RESULT_SCOPE: ExpressionScope = Object.freeze({ result: true, errorOutput: false });
export const ERROR_SCOPE: ExpressionScope = Object.freeze({ result: false, errorOutput: true });

/** Is `v` a JSONata expression string (`{% … %}`)? */
export function isJsonataExpression(v: unknown): v is string {
  return typeof v === 'string' && isExpressionText(v);
}

function isExpressionText(s: string): boolean {
  return s.length >= 4 && s.startsWith('{%') && s.endsWith('%}');
}

export const NOT_AN_EXPRESSION = 'JSONata string must start with {% and end with %}';

/** Checks every string of `v` (an object's members, an array's items, at any depth) at `path`. */
export function jsonataValue(p: Problems, path: string, v: unknown, scope: ExpressionScope): void {
  if (typeof v === 'string') jsonataString(p, path, v, scope);
  else if (Array.isArray(v)) v.forEach((item, i) => jsonataValue(p, atIndex(path, i), item, scope));
  else if (isObj(v)) {
    for (const [k, item] of Object.entries(v)) {
      // JSONata states evaluate `{% %}` strings; a `.$` key is the JSONPath way and is refused.
      if (k.endsWith('.$')) p.schema(at(path, k), otherLanguageField('JSONata', k));
      jsonataValue(p, at(path, k), item, scope);
    }
  }
}

/** One string of a JSONata state: a literal, or an expression that must be valid. */
export function jsonataString(p: Problems, path: string, s: string, scope: ExpressionScope): void {
  if (!isExpressionText(s)) {
    const t = s.trim();
    if (t.startsWith('{%') || (t.endsWith('%}') && t.includes('{%'))) p.schema(path, NOT_AN_EXPRESSION);
    return;
  }
  let ast: Node;
  try {
    ast = jsonata(s.slice(2, -2)).ast() as Node;
  } catch (e) {
    p.add('INVALID_JSONATA_EXPRESSION', path, (e as Error).message);
    return;
  }
  for (const message of unsupported(ast, scope)) p.add('UNSUPPORTED_JSONATA_EXPRESSION', path, message);
}

/** The parts of jsonata's parse tree this check reads. */
interface Node {
  type: string;
  value?: unknown;
  steps?: Node[];
  lhs?: Node | Node[][];
  rhs?: Node;
  expression?: Node;
  expressions?: Node[];
  procedure?: Node;
  arguments?: Node[];
  body?: Node;
  condition?: Node;
  then?: Node;
  else?: Node;
}

/** What an expression reads that a Step Functions expression may not, as AWS words it (each once). */
function unsupported(ast: Node, scope: ExpressionScope): string[] {
  const found = new Set<string>();
  topLevel(ast, scope, found);
  return [...found];
}

/**
 * Walks what is evaluated against the (absent) context item: the first step of each path, every
 * operand, argument and lambda body, but not later path steps, predicates, sort terms or groups,
 * which read the value the step before them produced.
 */
function topLevel(n: Node | undefined, scope: ExpressionScope, found: Set<string>): void {
  if (n === undefined) return;
  switch (n.type) {
    case 'path':
      statesField(n.steps ?? [], scope, found);
      topLevel(n.steps?.[0], scope, found);
      return;
    case 'name':
      found.add(`Reference to '${String(n.value)}' at the top level is not supported.`);
      return;
    case 'variable':
      if (n.value === '') found.add("Reference to '$' at the top level is not supported.");
      else if (n.value === '$') found.add("Reference to '$$' is not supported.");
      return;
    case 'unary':
      if (n.value === '{') for (const pair of (n.lhs as Node[][] | undefined) ?? []) pair.forEach((x) => topLevel(x, scope, found));
      else if (n.value === '[') n.expressions?.forEach((x) => topLevel(x, scope, found));
      else topLevel(n.expression, scope, found);
      return;
    case 'binary': case 'apply':
      topLevel(n.lhs as Node | undefined, scope, found);
      topLevel(n.rhs, scope, found);
      return;
    case 'function': case 'partial':
      topLevel(n.procedure, scope, found);
      n.arguments?.forEach((x) => topLevel(x, scope, found));
      return;
    case 'lambda': topLevel(n.body, scope, found); return;
    case 'condition':
      for (const x of [n.condition, n.then, n.else]) topLevel(x, scope, found);
      return;
    case 'block': n.expressions?.forEach((x) => topLevel(x, scope, found)); return;
    case 'bind': topLevel(n.rhs, scope, found); return;
    default: return;
  }
}

/** `$states.result` / `$states.errorOutput` where the field cannot see them. */
function statesField(steps: Node[], scope: ExpressionScope, found: Set<string>): void {
  const [first, second] = steps;
  if (first?.type !== 'variable' || first.value !== 'states' || second?.type !== 'name') return;
  if ((second.value === 'result' && !scope.result) || (second.value === 'errorOutput' && !scope.errorOutput)) {
    found.add(`Field '$states.${String(second.value)}' does not exist.`);
  }
}
