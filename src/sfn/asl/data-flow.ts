import { StateRuntimeError } from './errors.js';
import { PathNotFoundError, canonicalPath, readPath, writePath } from './json-path.js';

/**
 * The JSONPath input/output pipeline of a state, in the order the compiler applies it:
 * InputPath → (Parameters: payload-template.ts) → result → (ResultSelector) → ResultPath → OutputPath.
 */

function readOrRuntimeError(data: unknown, path: string, ctx: unknown): unknown {
  try {
    return readPath(data, path, ctx);
  } catch (e) {
    if (e instanceof PathNotFoundError) {
      throw new StateRuntimeError(`Invalid path '${path}' : No results for path: ${canonicalPath(path)}`);
    }
    throw e;
  }
}

/** InputPath: undefined → the whole input; null → `{}`; a path that matches nothing → States.Runtime. */
export function applyInputPath(input: unknown, inputPath: string | null | undefined, ctx: unknown): unknown {
  if (inputPath === undefined) return input;
  if (inputPath === null) return {};
  return readOrRuntimeError(input, inputPath, ctx);
}

/**
 * ResultPath: undefined → the result replaces the input; null → the input unchanged (result
 * discarded); otherwise the result is written into a copy of the input (States.ResultPathMatchFailure).
 */
export function applyResultPath(input: unknown, result: unknown, resultPath: string | null | undefined): unknown {
  if (resultPath === undefined) return result;
  if (resultPath === null) return input;
  return writePath(input, resultPath, result);
}

/** OutputPath: undefined → the data; null → `{}`; a path that matches nothing → States.Runtime. */
export function applyOutputPath(data: unknown, outputPath: string | null | undefined, ctx: unknown): unknown {
  if (outputPath === undefined) return data;
  if (outputPath === null) return {};
  return readOrRuntimeError(data, outputPath, ctx);
}
