import { applyInputPath } from '../asl/data-flow.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { ParallelState } from '../asl/types.js';
import type { SfnExecutionOutput } from './contract.js';
import { GO_WAIT, visibleVariables, type Fault } from './graph-context.js';
import { evalField, isJsonata } from './query.js';
import { isKept, isKid, keepResult, kidFault, KIDS_PER_TURN, newKids, notePoint, resumeKids, startKids } from './kids.js';
import { checkedJson, dataLimitFault } from './payload-limit.js';
import { decideFault } from './retry-catch.js';
import { finishWithResult } from './state-flow.js';
import type { Step } from './step.js';

/** The branches' input: InputPath → Parameters (JSONata: Arguments, default `$states.input`). */
export function branchInput(s: Step, def: ParallelState): unknown {
  if (isJsonata(def)) return def.Arguments === undefined ? s.ctx.input : evalField(s, def.Arguments, 'Arguments');
  const co = s.co();
  const effective = applyInputPath(s.ctx.input, def.InputPath, co);
  return def.Parameters !== undefined ? evaluateTemplate(def.Parameters, effective, co) : effective;
}

/** Parallel: InputPath → Parameters, then one spawned child per branch, all with the same input (started a turn at a time). */
export function runParallel(s: Step, name: string, def: ParallelState): void {
  const r = s.attempt(() => branchInput(s, def));
  const j = r.ok ? checkedJson(r.value, name) : r;
  if (!r.ok || !j.ok) {
    decideFault(s, def, (j as { fault: Fault }).fault);
    return;
  }
  const kids = newKids(s, name, def.Branches.length, def.Branches.length);
  // Every branch's first event links to ParallelStateStarted.
  s.record('ParallelStateStarted', undefined, { link: { seed: def.Branches.flatMap((_b, i) => (isKept(kids, i) ? [] : [kids.prefix + i])) } });
  // Branches of later turns get the same input (Parameters may hold States.UUID(): not evaluated again).
  if (kids.total > KIDS_PER_TURN) kids.input = r.value;
  s.ctx.kids = kids;
  s.ctx.go = GO_WAIT;
  startBranches(s, name, r.value);
  // A redrive that kept every branch: nothing runs again, the state finishes now.
  if (s.ctx.kids!.finished === s.ctx.kids!.total) succeedParallel(s, def);
}

function succeedParallel(s: Step, def: ParallelState): void {
  s.record('ParallelStateSucceeded', undefined, { link: { keep: true } });
  finishWithResult(s, def, s.ctx.kids!.results);
}

function startBranches(s: Step, name: string, input: unknown): void {
  const outer = visibleVariables(s.ctx);
  startKids(s, (i) => ({ src: s.env.srcOf(name, i), input: { data: input, co: s.ctx.co, execDeadline: null, outer } }));
}

/** The turn after a yield: start the next branches. */
export function parallelResume(s: Step, name: string): void {
  resumeKids(s);
  startBranches(s, name, s.ctx.kids!.input);
}

/** A branch finished: collect its output (in branch order) or fail the state with its error. */
export function parallelKidDone(s: Step, name: string, def: ParallelState, actorId: string, out: SfnExecutionOutput): void {
  if (!isKid(s.ctx, actorId)) return;
  s.stops.push(actorId);
  // What closes the state links to the latest last event of its branches.
  s.links.push({ op: 'join', into: s.env.selfId, from: [actorId] });
  if (out.status !== 'SUCCEEDED') {
    notePoint(s, actorId, out);
    failParallel(s, def, kidFault(out));
    return;
  }
  if (!keepResult(s, actorId, out.output)) {
    failParallel(s, def, dataLimitFault(name));
    return;
  }
  const k = s.ctx.kids!;
  if (k.finished === k.total) succeedParallel(s, def);
}

/** The Parallel state fails: its running branches count for the link, unstarted ones are dropped; ParallelStateFailed unless retried. */
function failParallel(s: Step, def: ParallelState, fault: Fault): void {
  const k = s.ctx.kids!;
  s.links.push({ op: 'join', into: s.env.selfId, from: Object.keys(k.live) });
  if (k.next < k.total) s.links.push({ op: 'drop', keys: Array.from({ length: k.total - k.next }, (_v, i) => k.prefix + (k.next + i)) });
  decideFault(s, def, fault, () => s.record('ParallelStateFailed'));
}
