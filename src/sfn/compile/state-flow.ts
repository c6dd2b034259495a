import { applyOutputPath, applyResultPath } from '../asl/data-flow.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { State } from '../asl/types.js';
import type { SfnEventType } from './contract.js';
import { GO_END, goTo, iso, json } from './graph-context.js';
import { checkedJson } from './payload-limit.js';
import { decideFault } from './retry-catch.js';
import type { Step } from './step.js';

/** What every state does on entry: record `<Type>StateEntered`, start the `$$.State` (Name, EnteredTime) and the retry counters. */
export function enterState(s: Step, name: string, def: State): void {
  s.ctx.input = s.ctx.data;
  s.ctx.state = { Name: name, EnteredTime: iso(s.now()) };
  s.ctx.retries = [];
  s.ctx.retryAt = null;
  s.ctx.fault = null;
  s.ctx.go = null;
  s.record(`${def.Type}StateEntered` as SfnEventType, { name, input: json(s.ctx.data), inputDetails: { truncated: false } });
}

/**
 * Leaves the state with `output`: record `<Type>StateExited` and go to Next, or end the graph.
 * An output over the payload quota fails the state instead (States.DataLimitExceeded); false then.
 */
export function exitState(s: Step, def: State, output: unknown): boolean {
  const j = checkedJson(output, s.ctx.state!.Name);
  if (!j.ok) {
    decideFault(s, def, j.fault);
    return false;
  }
  s.ctx.data = output;
  s.record(`${def.Type}StateExited` as SfnEventType, { name: s.ctx.state!.Name, output: j.text, outputDetails: { truncated: false } });
  s.ctx.go = def.End || def.Next === undefined ? GO_END : goTo(def.Next);
  return true;
}

type WithResult = State & { ResultSelector?: unknown; ResultPath?: string | null };

/**
 * A state's result (activity output, branch outputs, …) → ResultSelector → ResultPath (into the raw
 * input) → OutputPath → exit. A data-flow error fails the state (Retry/Catch apply).
 */
export function finishWithResult(s: Step, def: WithResult, result: unknown): void {
  const r = s.attempt(() => {
    const selected = def.ResultSelector !== undefined ? evaluateTemplate(def.ResultSelector, result, s.co()) : result;
    const placed = applyResultPath(s.ctx.input, selected, def.ResultPath);
    return applyOutputPath(placed, def.OutputPath, s.co());
  });
  if (r.ok) exitState(s, def, r.value);
  else decideFault(s, def, r.fault);
}
