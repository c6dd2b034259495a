import { applyInputPath, applyOutputPath, applyResultPath } from '../asl/data-flow.js';
import { StateRuntimeError } from '../asl/errors.js';
import { evaluateIntrinsic, isIntrinsicCall } from '../asl/intrinsics.js';
import { PathNotFoundError, canonicalPath, readPath } from '../asl/json-path.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { FailState, PassState, SucceedState } from '../asl/types.js';
import { GO_END } from './graph-context.js';
import { isJsonataExpression } from '../asl/jsonata.js';
import { isJsonata, stringField } from './query.js';
import { exitState, finishJsonata } from './state-flow.js';
import type { Step } from './step.js';
import { evaluateAssign } from './variables.js';

/** Pass: InputPath → Parameters → Result (or the effective input) → ResultPath → OutputPath; JSONata: Output. */
export function runPass(s: Step, def: PassState): void {
  if (isJsonata(def)) {
    finishJsonata(s, def, s.ctx.input);
    return;
  }
  const r = s.attempt(() => {
    const co = s.co();
    const effective = applyInputPath(s.ctx.input, def.InputPath, co);
    const params = def.Parameters !== undefined ? evaluateTemplate(def.Parameters, effective, co) : effective;
    const result = def.Result !== undefined ? def.Result : params;
    s.env.trace?.('afterInputPath', effective);
    s.env.trace?.('afterParameters', params);
    if (def.Result !== undefined) s.env.trace?.('result', result);
    // JSONPath Assign reads the state's result (Result, or Parameters' output) as `$`.
    const assigned = evaluateAssign(s, def, def.Assign, 'Assign', {}, result);
    s.env.trace?.('afterResultSelector', result);
    const placed = applyResultPath(s.ctx.input, result, def.ResultPath);
    s.env.trace?.('afterResultPath', placed);
    return { output: applyOutputPath(placed, def.OutputPath, co), assigned };
  });
  if (r.ok) exitState(s, def, r.value.output, r.value.assigned);
  else s.fail(r.fault);
}

/** Succeed: InputPath → OutputPath (JSONata: Output), then the graph ends. */
export function runSucceed(s: Step, def: SucceedState): void {
  if (isJsonata(def)) {
    if (finishJsonata(s, def, s.ctx.input)) s.ctx.go = GO_END;
    return;
  }
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
  if (isJsonata(def)) {
    const value = (v: string | undefined, field: string) => (v !== undefined && isJsonataExpression(v) ? stringField(s, v, field) : v);
    const j = s.attempt(() => ({ error: value(def.Error, 'Error'), cause: value(def.Cause, 'Cause') }));
    if (!j.ok) s.fail(j.fault);
    else s.fail({ error: j.value.error ?? '', cause: j.value.cause ?? '' });
    return;
  }
  const r = s.attempt(() => ({
    error: def.ErrorPath !== undefined ? failValue(s, def.ErrorPath) : def.Error,
    cause: def.CausePath !== undefined ? failValue(s, def.CausePath) : def.Cause,
  }));
  if (!r.ok) s.fail(r.fault);
  else s.fail({ error: r.value.error ?? '', cause: r.value.cause ?? '' });
}
