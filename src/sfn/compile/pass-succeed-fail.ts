import { applyInputPath, applyOutputPath, applyResultPath } from '../asl/data-flow.js';
import { StateRuntimeError } from '../asl/errors.js';
import { evaluateIntrinsic, isIntrinsicCall } from '../asl/intrinsics.js';
import { PathNotFoundError, canonicalPath, readPath } from '../asl/json-path.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { FailState, PassState, SucceedState } from '../asl/types.js';
import { GO_END } from './graph-context.js';
import { exitState } from './state-flow.js';
import type { Step } from './step.js';

/** Pass: InputPath → Parameters → Result (or the effective input) → ResultPath → OutputPath. */
export function runPass(s: Step, def: PassState): void {
  const r = s.attempt(() => {
    const co = s.co();
    const effective = applyInputPath(s.ctx.input, def.InputPath, co);
    const params = def.Parameters !== undefined ? evaluateTemplate(def.Parameters, effective, co) : effective;
    const result = def.Result !== undefined ? def.Result : params;
    return applyOutputPath(applyResultPath(s.ctx.input, result, def.ResultPath), def.OutputPath, co);
  });
  if (r.ok) exitState(s, def, r.value);
  else s.fail(r.fault);
}

/** Succeed: InputPath → OutputPath, then the graph ends. */
export function runSucceed(s: Step, def: SucceedState): void {
  const r = s.attempt(() => {
    const co = s.co();
    return applyOutputPath(applyInputPath(s.ctx.input, def.InputPath, co), def.OutputPath, co);
  });
  if (!r.ok) {
    s.fail(r.fault);
    return;
  }
  if (exitState(s, def, r.value)) s.ctx.go = GO_END;
}

/** An ErrorPath/CausePath value: a path into the state input (or `$$`), or an intrinsic function call. */
function failValue(s: Step, path: string): string {
  const co = s.co();
  let v: unknown;
  if (isIntrinsicCall(path)) v = evaluateIntrinsic(path, s.ctx.input, co);
  else {
    try {
      v = readPath(s.ctx.input, path, co);
    } catch (e) {
      if (e instanceof PathNotFoundError) throw new StateRuntimeError(`Invalid path '${path}' : No results for path: ${canonicalPath(path)}`);
      throw e;
    }
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Fail: the graph fails with Error/Cause (or the values of ErrorPath/CausePath). A Fail state without
 * them fails the execution with neither member, as on AWS (the empty string stands for "none").
 */
export function runFail(s: Step, def: FailState): void {
  const r = s.attempt(() => ({
    error: def.ErrorPath !== undefined ? failValue(s, def.ErrorPath) : def.Error,
    cause: def.CausePath !== undefined ? failValue(s, def.CausePath) : def.Cause,
  }));
  if (!r.ok) s.fail(r.fault);
  else s.fail({ error: r.value.error ?? '', cause: r.value.cause ?? '' });
}
