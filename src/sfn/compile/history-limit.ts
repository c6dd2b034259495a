import type { Fault, GraphContext } from './graph-context.js';
import { Step } from './step.js';

/**
 * The history quota of a Standard execution (AWS: 25,000 events). Every step of every actor of one
 * execution checks its records against one count, the events the execution has recorded so far
 * (SfnHooks.used: the host's, persisted with the history), so concurrent Parallel branches and Map
 * iterations share the quota exactly. A step that would pass it fails its graph with
 * States.Runtime, which also ends a loop of Pass and Choice states that would otherwise spin
 * forever inside one XState macrostep.
 */
export const DEFAULT_HISTORY_LIMIT = 25_000;

/** The closing Execution* event of the root, which always finds room. */
const CLOSING_EVENT = 1;

export function historyLimitFault(limit: number): Fault {
  return { error: 'States.Runtime', cause: `The execution reached the maximum number of history events (${limit}).` };
}

/**
 * Checks a finished step's records against the quota (`used`: events the execution already has).
 * Past it, the step's work is dropped (its records, spawns and sends; finished children are still
 * stopped) and the graph fails with States.Runtime.
 */
export function countRecords(s: Step, before: GraphContext, limit: number, used: number): Step {
  if (used + s.records.length <= limit - CLOSING_EVENT) return s;
  const failing = new Step(before, s.env);
  for (const id of s.stops) failing.stops.push(id); // no push(...): a wide Map has more stops than a call takes arguments
  failing.ctx.limitHit = true;
  failing.fail(historyLimitFault(limit));
  return failing;
}

/**
 * Records that steps produced and XState has not run yet, per execution (actor system): an actor
 * that initialises defers its actions until it starts, so a loop spinning in the first macrostep
 * would never see its own events in `SfnHooks.used`. Shared by the graphs of one compiled machine.
 */
export class UnrecordedCounts {
  private readonly counts = new WeakMap<object, number>();

  add(system: object, n: number): void {
    if (n > 0) this.counts.set(system, (this.counts.get(system) ?? 0) + n);
  }

  /** One record action ran. */
  recorded(system: object): void {
    this.counts.set(system, Math.max(0, (this.counts.get(system) ?? 0) - 1));
  }

  of(system: object): number {
    return this.counts.get(system) ?? 0;
  }
}
