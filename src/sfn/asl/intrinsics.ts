import { Budget } from './bounds.js';
import { AslError } from './errors.js';
import { applyIntrinsic, type ArgValue } from './intrinsic-functions.js';
import { type IntrinsicArg, type IntrinsicCall, isIntrinsicCall, parseIntrinsic } from './intrinsic-parser.js';
import { PathNotFoundError, readPath } from './json-path.js';

export { INTRINSIC_ARITY, isIntrinsicCall, parseIntrinsic } from './intrinsic-parser.js';
export type { IntrinsicArg, IntrinsicCall, IntrinsicName } from './intrinsic-parser.js';

/**
 * Evaluates an intrinsic call such as `States.Format('{} {}', $.a, States.UUID())`: `$` paths read
 * `input`, `$$` paths read `ctx`. Bad syntax, a bad argument, a path that matches nothing or work
 * past the bounds of `budget` (shared with the template it is part of) → States.IntrinsicFailure.
 */
export function evaluateIntrinsic(expr: string, input: unknown, ctx: unknown, budget?: Budget): unknown {
  const call = isIntrinsicCall(expr) ? parseIntrinsic(expr) : null;
  if (call === null) throw new AslError('States.IntrinsicFailure', `Invalid intrinsic function call: ${expr}`);
  const b = budget ?? Budget.start('States.IntrinsicFailure', call.name);
  return evaluateCall(call, input, ctx, b);
}

function evaluateCall(call: IntrinsicCall, input: unknown, ctx: unknown, budget: Budget): unknown {
  const b = budget.as('States.IntrinsicFailure', call.name);
  const result = applyIntrinsic(call.name, call.args.map((a) => evaluateArg(call, a, input, ctx, b)), b);
  b.charge(result);
  return result;
}

function evaluateArg(call: IntrinsicCall, a: IntrinsicArg, input: unknown, ctx: unknown, budget: Budget): ArgValue {
  switch (a.kind) {
    case 'literal':
      return a.raw === undefined ? { value: a.value } : { value: a.value, raw: a.raw };
    case 'call':
      return { value: evaluateCall(a.call, input, ctx, budget) };
    case 'path':
      try {
        return { value: readPath(input, a.path, ctx, budget) };
      } catch (e) {
        if (!(e instanceof PathNotFoundError)) throw e;
        throw new AslError('States.IntrinsicFailure', `Invalid arguments in ${call.name}: no value at path ${a.path}`);
      }
  }
}
