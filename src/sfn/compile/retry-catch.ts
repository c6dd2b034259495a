import { applyResultPath } from '../asl/data-flow.js';
import { matchesError, maxAttempts, retryDelayMs } from '../asl/errors.js';
import type { Catcher, Retrier, State } from '../asl/types.js';
import { GO_RETRY, goTo, type Fault } from './graph-context.js';
import { evalField, isJsonata } from './query.js';
import { exitRecord } from './exit-record.js';
import { plainCause } from './state-cause.js';
import type { Step } from './step.js';
import { evaluateAssign } from './variables.js';

type Handles = State & { Retry?: Retrier[]; Catch?: Catcher[] };

/** Whether `error` may be retried or caught at all (AWS: States.Runtime always fails the execution). */
function handleable(error: string): boolean {
  return error !== 'States.Runtime';
}

/**
 * A state failed with `fault`: the first matching retrier retries it (if it has attempts left, after
 * its delay), else the first matching catcher moves on with `{Error, Cause}` placed by its ResultPath,
 * else the graph fails. `unretried` runs first when no retrier takes it (AWS records MapStateFailed
 * and ParallelStateFailed only then).
 */
export function decideFault(s: Step, def: State, fault: Fault, unretried?: () => void): void {
  const { Retry = [], Catch = [] } = def as Handles;
  if (handleable(fault.error)) {
    const i = Retry.findIndex((r) => matchesError(r.ErrorEquals, fault.error, fault.heartbeat));
    if (i >= 0) {
      const done = s.ctx.retries[i] ?? 0;
      if (done < maxAttempts(Retry[i])) {
        const retries = [...s.ctx.retries];
        retries[i] = done + 1;
        s.ctx.retries = retries;
        s.ctx.retryAt = s.now() + retryDelayMs(Retry[i], done + 1, Math.random);
        s.ctx.fault = fault;
        s.ctx.go = GO_RETRY;
        return;
      }
    }
    unretried?.();
    const c = Catch.find((k) => matchesError(k.ErrorEquals, fault.error, fault.heartbeat));
    if (c) {
      catchWith(s, def, c, { Error: fault.error, Cause: plainCause(fault.cause) });
      return;
    }
  }
  if (!handleable(fault.error)) unretried?.();
  s.fail(fault);
}

/**
 * A catcher takes the error: JSONPath places `{Error, Cause}` by its ResultPath, JSONata gives its
 * Output (default `$states.errorOutput`); its Assign (not the state's) takes effect. A data-flow or
 * evaluation error, or an output over the quota, in the catcher itself fails the graph (no second catch).
 */
function catchWith(s: Step, def: State, c: Catcher, errorOutput: { Error: string; Cause: string }): void {
  const jsonata = isJsonata(def);
  const extra = { errorOutput };
  const r = s.attempt(() => ({
    output: jsonata
      ? (c.Output === undefined ? errorOutput : evalField(s, c.Output, 'Output', extra))
      : applyResultPath(s.ctx.input, errorOutput, c.ResultPath),
    assigned: evaluateAssign(s, def, c.Assign, 'Assign', extra, errorOutput),
  }));
  const exited = r.ok ? exitRecord(s, r.value.output, r.value.assigned) : r;
  if (!exited.ok) {
    s.fail(exited.fault);
    return;
  }
  s.ctx.fault = null;
  s.ctx.go = goTo(c.Next);
}

/** Every state a failure of `def` may move to through its catchers. */
export function catchTargets(def: State): string[] {
  return ((def as Handles).Catch ?? []).map((c) => c.Next);
}

export function hasRetry(def: State): boolean {
  return ((def as Handles).Retry ?? []).length > 0;
}
