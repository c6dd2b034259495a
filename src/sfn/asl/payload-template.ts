import { AslError } from './errors.js';
import { evaluateIntrinsic, isIntrinsicCall } from './intrinsics.js';
import { PathNotFoundError, isObject, readPath } from './json-path.js';

/**
 * Evaluates a payload template (Parameters, ResultSelector, ItemSelector): a deep copy of
 * `template` in which every `"key.$": "<path or intrinsic>"` becomes `"key": <value>`. Paths starting
 * `$$` read `ctx`; a path that matches nothing → States.ParameterPathFailure.
 */
export function evaluateTemplate(template: unknown, input: unknown, ctx: unknown): unknown {
  if (Array.isArray(template)) return template.map((t) => evaluateTemplate(t, input, ctx));
  if (!isObject(template)) return template;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$') && typeof value === 'string') {
      out[key.slice(0, -2)] = evaluateDynamic(key, value, input, ctx);
    } else {
      out[key] = evaluateTemplate(value, input, ctx);
    }
  }
  return out;
}

function evaluateDynamic(key: string, expr: string, input: unknown, ctx: unknown): unknown {
  if (isIntrinsicCall(expr)) return evaluateIntrinsic(expr, input, ctx);
  try {
    return readPath(input, expr, ctx);
  } catch (e) {
    if (!(e instanceof PathNotFoundError)) throw e;
    const source = expr.startsWith('$$') ? ctx : input;
    throw new AslError(
      'States.ParameterPathFailure',
      `The JSONPath '${expr}' specified for the field '${key}' could not be found in the input '${JSON.stringify(source) ?? 'undefined'}'`,
    );
  }
}
