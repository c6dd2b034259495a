import { applyInputPath } from '../asl/data-flow.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { ParallelState } from '../asl/types.js';
import type { SfnExecutionOutput } from './contract.js';
import { GO_WAIT } from './graph-context.js';
import { childBudget } from './history-limit.js';
import { decideFault } from './retry-catch.js';
import { finishWithResult } from './state-flow.js';
import type { Step } from './step.js';

/** Parallel: InputPath → Parameters, then one spawned child per branch, all with the same input. */
export function runParallel(s: Step, name: string, def: ParallelState): void {
  const r = s.attempt(() => {
    const co = s.co();
    const effective = applyInputPath(s.ctx.input, def.InputPath, co);
    return def.Parameters !== undefined ? evaluateTemplate(def.Parameters, effective, co) : effective;
  });
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return;
  }
  const visit = s.nextSeq();
  const tag = s.env.tagOf(name);
  const ids = def.Branches.map((_, i) => `${s.env.selfId}/${tag}.${visit}.${i}`);
  s.record('ParallelStateStarted');
  ids.forEach((id, i) => s.spawn({ id, src: s.env.srcOf(name, i), input: { data: r.value, co: s.ctx.co, execDeadline: null, budget: childBudget(s) } }));
  s.ctx.kids = { visit, ids, results: ids.map(() => null), finished: 0, running: ids.length, next: ids.length };
  s.ctx.go = GO_WAIT;
}

/** A branch finished: collect its output (in branch order) or fail the state with its error. */
export function parallelKidDone(s: Step, def: ParallelState, actorId: string, out: SfnExecutionOutput): void {
  const k = s.ctx.kids!;
  const i = k.ids.indexOf(actorId);
  s.stops.push(actorId);
  if (out.status !== 'SUCCEEDED') {
    s.record('ParallelStateFailed');
    decideFault(s, def, { error: out.error ?? '', cause: out.cause ?? '' });
    return;
  }
  const results = [...k.results];
  results[i] = out.output;
  s.ctx.kids = { ...k, results, finished: k.finished + 1, running: k.running - 1 };
  if (k.finished + 1 === k.ids.length) {
    s.record('ParallelStateSucceeded');
    finishWithResult(s, def, results);
  }
}
