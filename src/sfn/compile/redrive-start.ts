import type { StateGraph } from '../asl/types.js';
import type { KeptKids, RedrivePoint } from './contract.js';
import type { GraphContext } from './graph-context.js';
import type { GraphNames } from './graph-names.js';

/**
 * Redrive (RedriveExecution) is a start mode of the root machine, not an event: a closed execution's
 * actor is done and takes no more events, so the host starts a fresh root actor whose input carries
 * a RedrivePoint taken from the closed one's last persisted snapshot. The root's first state
 * (`$begin`) then goes to the point's state instead of StartAt, with the context that state had when
 * it was entered (its raw input, the variables, the key counter), and the state runs again from its
 * entry (`<Type>StateEntered`, fresh retry counters), as AWS re-runs the state that failed, timed out
 * or was aborted. The states before it are not run again: their work is in the point's input and
 * variables. A Parallel or Map state keeps the outputs of the children that succeeded (`keep`):
 * its next visit fills them in without running them (kids.ts), so only the branches and iterations
 * that failed, were aborted or never started run again. The execution's TimeoutSeconds counts from
 * the redrive (AWS: "the state machine level timeout ... is reset"), see compile-state-machine.ts.
 */
/** Where a closed execution starts again, from its root's last context; undefined when it cannot (no state entered, history limit hit). */
export function redrivePointOf(ctx: GraphContext): RedrivePoint | undefined {
  if (!ctx.state || ctx.limitHit) return undefined;
  const state = ctx.state.Name;
  return {
    state, input: ctx.input, seq: ctx.seq,
    ...(ctx.vars ? { vars: ctx.vars } : {}),
    ...(ctx.kept?.state === state ? { keep: ctx.kept } : {}),
  };
}

/** A fresh graph's context, moved to a redrive point when there is one. */
export function resumeAt(ctx: GraphContext, p: RedrivePoint | undefined): GraphContext {
  if (!p) return ctx;
  return {
    ...ctx, data: p.input, input: p.input, seq: p.seq, redriveTo: p.state,
    ...(p.vars ? { vars: p.vars } : {}),
    ...(p.keep ? { keep: p.keep } : {}),
  };
}

/** The children of a Parallel or Map visit that succeeded, as it ends unfinished (failed, aborted, timed out, retried). */
export function keptKids(ctx: GraphContext): KeptKids | undefined {
  const k = ctx.kids;
  if (!k || !ctx.state || k.finished === k.total) return undefined;
  const results: Record<string, unknown> = {};
  // Started and no longer running: finished successfully (a failed child is still among `live` when its state fails).
  for (let i = 0; i < k.next; i++) if (!Object.hasOwn(k.live, k.prefix + i)) results[i] = k.results[i];
  return { state: ctx.state.Name, results, ...(k.points ? { points: k.points } : {}) };
}

/** The root's first state: on to the redrive point's state, else to StartAt. */
export function beginNode(names: GraphNames, graph: StateGraph): Record<string, unknown> {
  return {
    always: [
      ...Object.keys(graph.States).map((to) => ({ guard: { type: 'redriveTo', params: { to } }, target: names.targetOf(to), actions: 'redriveTaken' })),
      { target: names.targetOf(names.start) },
    ],
  };
}
