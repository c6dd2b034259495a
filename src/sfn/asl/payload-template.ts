import { Budget } from './bounds.js';
import { AslError } from './errors.js';
import { evaluateIntrinsic, isIntrinsicCall } from './intrinsics.js';
import { PathNotFoundError, isDefinitePath, isObject, readPath } from './json-path.js';
import { jsonQuote } from './json-text.js';

/** The budget of one payload template: its paths fail with States.Runtime, its intrinsics with States.IntrinsicFailure. */
export function templateBudget(): Budget {
  return Budget.start('States.Runtime', 'the payload template');
}

/**
 * Evaluates a payload template (Parameters, ResultSelector, ItemSelector): a deep copy of
 * `template` in which every `"key.$": "<path or intrinsic>"` becomes `"key": <value>`. Paths starting
 * `$$` read `ctx`; a path that matches nothing → States.ParameterPathFailure. All of it runs on one
 * budget (by default its own): the values it places count, so a template cannot multiply its input.
 */
export function evaluateTemplate(template: unknown, input: unknown, ctx: unknown, budget: Budget = templateBudget()): unknown {
  if (Array.isArray(template)) return template.map((t) => evaluateTemplate(t, input, ctx, budget));
  if (!isObject(template)) return template;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$') && typeof value === 'string') {
      out[key.slice(0, -2)] = evaluateDynamic(key, value, input, ctx, budget);
    } else {
      out[key] = evaluateTemplate(value, input, ctx, budget);
    }
  }
  return out;
}

function evaluateDynamic(key: string, expr: string, input: unknown, ctx: unknown, budget: Budget): unknown {
  if (isIntrinsicCall(expr)) return evaluateIntrinsic(expr, input, ctx, budget);
  try {
    const value = readPath(input, expr, ctx, budget.as('States.Runtime', `the JSONPath '${expr}'`));
    // A node of the input placed once more (other paths and intrinsics count what they produce themselves).
    if (isDefinitePath(expr)) budget.charge(value);
    return value;
  } catch (e) {
    if (!(e instanceof PathNotFoundError)) throw e;
    const source = expr.startsWith('$$') ? ctx : input;
    throw new AslError(
      'States.ParameterPathFailure',
      `The JSONPath '${expr}' specified for the field '${key}' could not be found in the input '${jsonQuote(source)}'`,
    );
  }
}
