import { applyResultPath } from '../asl/data-flow.js';
import { matchesError, maxAttempts, retryDelayMs } from '../asl/errors.js';
import type { Catcher, Retrier, State } from '../asl/types.js';
import type { SfnEventType } from './contract.js';
import { GO_RETRY, goTo, type Fault } from './graph-context.js';
import { checkedJson } from './payload-limit.js';
import type { Step } from './step.js';

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
    const i = Retry.findIndex((r) => matchesError(r.ErrorEquals, fault.error));
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
    const c = Catch.find((k) => matchesError(k.ErrorEquals, fault.error));
    if (c) {
      const r = s.attempt(() => applyResultPath(s.ctx.input, { Error: fault.error, Cause: fault.cause }, c.ResultPath));
      const j = r.ok ? checkedJson(r.value, s.ctx.state!.Name) : r;
      if (!r.ok || !j.ok) {
        // A data-flow error or an output over the quota in the catcher itself: no second catch.
        s.fail((j as { fault: Fault }).fault);
        return;
      }
      s.ctx.data = r.value;
      s.ctx.fault = null;
      s.record(`${def.Type}StateExited` as SfnEventType, { name: s.ctx.state!.Name, output: j.text, outputDetails: { truncated: false } });
      s.ctx.go = goTo(c.Next);
      return;
    }
  }
  if (!handleable(fault.error)) unretried?.();
  s.fail(fault);
}

/** Every state a failure of `def` may move to through its catchers. */
export function catchTargets(def: State): string[] {
  return ((def as Handles).Catch ?? []).map((c) => c.Next);
}

export function hasRetry(def: State): boolean {
  return ((def as Handles).Retry ?? []).length > 0;
}
