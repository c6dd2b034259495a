import type { Fault, GraphContext } from './graph-context.js';
import { Step } from './step.js';

/**
 * The history quota of a Standard execution (AWS: 25,000 events). Each graph counts the events its
 * steps record in its context; a child graph starts with the budget its parent has left and hands
 * its count back in its output when it ends. A graph that would pass its budget fails with
 * States.Runtime, which also ends a loop of Pass and Choice states that would otherwise spin
 * forever inside one XState macrostep.
 */
export const DEFAULT_HISTORY_LIMIT = 25_000;

/** Events of the root besides its steps': ExecutionStarted (the host records it) and the closing Execution* event. */
const ROOT_RESERVED = 2;

/** The root graph's budget for a history limit. */
export function rootBudget(limit: number): number {
  return limit - ROOT_RESERVED;
}

export function historyLimitFault(limit: number): Fault {
  return { error: 'States.Runtime', cause: `The execution reached the maximum number of history events (${limit}).` };
}

/** A context persisted before graphs counted their events starts counting now, with the whole budget. */
export function withCount(ctx: GraphContext, limit: number): GraphContext {
  return typeof ctx.events === 'number' ? ctx : { ...ctx, events: 0, budget: rootBudget(limit), limitHit: false };
}

/** Events a child spawned now may record: what this graph has left after the step's own records. */
export function childBudget(s: Step): number {
  return s.ctx.budget - s.ctx.events - s.records.length;
}

/**
 * Counts a finished step's records. Past the budget, the step's work is dropped (its records,
 * spawns and sends; finished children are still stopped) and the graph fails with States.Runtime.
 */
export function countRecords(s: Step, before: GraphContext, limit: number): Step {
  const events = s.ctx.events + s.records.length;
  if (events <= s.ctx.budget) {
    s.ctx.events = events;
    return s;
  }
  const failing = new Step(before, s.env);
  for (const id of s.stops) failing.stops.push(id); // no push(...): a wide Map has more stops than a call takes arguments
  failing.ctx.events = s.ctx.events;
  failing.ctx.limitHit = true;
  failing.fail(historyLimitFault(limit));
  return failing;
}
