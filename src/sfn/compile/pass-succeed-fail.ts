import { applyInputPath, applyOutputPath, applyResultPath } from '../asl/data-flow.js';
import { readPath } from '../asl/json-path.js';
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

/** Fail: the graph fails with Error/Cause (or the strings at ErrorPath/CausePath). */
export function runFail(s: Step, def: FailState): void {
  const r = s.attempt(() => {
    const co = s.co();
    const at = (path: string | undefined, fixed: string | undefined): string | undefined => {
      if (path === undefined) return fixed;
      const v = readPath(s.ctx.input, path, co);
      return typeof v === 'string' ? v : JSON.stringify(v);
    };
    return { error: at(def.ErrorPath, def.Error), cause: at(def.CausePath, def.Cause) };
  });
  if (!r.ok) s.fail(r.fault);
  else s.fail({ error: r.value.error ?? '', cause: r.value.cause ?? '' });
}
