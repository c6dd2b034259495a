import { applyOutputPath, applyResultPath } from '../asl/data-flow.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { State } from '../asl/types.js';
import type { SfnEventType } from './contract.js';
import { GO_END, goTo, iso, json } from './graph-context.js';
import { exitRecord } from './exit-record.js';
import { evalField, isJsonata } from './query.js';
import { decideFault } from './retry-catch.js';
import type { Step } from './step.js';
import { evaluateAssign } from './variables.js';

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
 * Leaves the state with `output` (and the variables it `assigned`, which take effect now): record
 * `<Type>StateExited` and go to Next, or end the graph. An output or assignments over the payload
 * quota fail the state instead (States.DataLimitExceeded); false then.
 */
export function exitState(s: Step, def: State, output: unknown, assigned?: Record<string, unknown>): boolean {
  const exited = exitRecord(s, output, assigned);
  if (!exited.ok) {
    decideFault(s, def, exited.fault);
    return false;
  }
  s.ctx.go = def.End || def.Next === undefined ? GO_END : goTo(def.Next);
  return true;
}

/**
 * A JSONata state leaves: Output (default `fallback`: the result, or the input) and Assign, both
 * evaluated with the variables as they were before the state. An evaluation error fails the state.
 */
export function finishJsonata(s: Step, def: State, fallback: unknown, extra: { result?: unknown } = {}, rule?: { Output?: unknown; Assign?: Record<string, unknown> }): boolean {
  const src = rule ?? def;
  const r = s.attempt(() => ({
    output: src.Output === undefined ? fallback : evalField(s, src.Output, 'Output', extra),
    assigned: evaluateAssign(s, def, src.Assign, 'Assign', extra, undefined),
  }));
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return false;
  }
  return exitState(s, def, r.value.output, r.value.assigned);
}

type WithResult = State & { ResultSelector?: unknown; ResultPath?: string | null };

/**
 * A state's result (activity output, branch outputs, …) → ResultSelector → ResultPath (into the raw
 * input) → OutputPath → exit. A data-flow error fails the state (Retry/Catch apply).
 */
export function finishWithResult(s: Step, def: WithResult, result: unknown): void {
  if (isJsonata(def)) {
    finishJsonata(s, def, result, { result });
    return;
  }
  const r = s.attempt(() => {
    const selected = def.ResultSelector !== undefined ? evaluateTemplate(def.ResultSelector, result, s.co()) : result;
    s.env.trace?.('afterResultSelector', selected);
    // JSONPath Assign reads the result (after ResultSelector) as `$`.
    const assigned = evaluateAssign(s, def, def.Assign, 'Assign', {}, selected);
    const placed = applyResultPath(s.ctx.input, selected, def.ResultPath);
    s.env.trace?.('afterResultPath', placed);
    return { output: applyOutputPath(placed, def.OutputPath, s.co()), assigned };
  });
  if (r.ok) exitState(s, def, r.value.output, r.value.assigned);
  else decideFault(s, def, r.fault);
}
