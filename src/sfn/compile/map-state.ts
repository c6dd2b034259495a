import { applyInputPath } from '../asl/data-flow.js';
import { AslError } from '../asl/errors.js';
import { readPath } from '../asl/json-path.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { MapState } from '../asl/types.js';
import type { SfnExecutionOutput } from './contract.js';
import { GO_WAIT, json } from './graph-context.js';
import { childBudget } from './history-limit.js';
import { decideFault } from './retry-catch.js';
import { finishWithResult } from './state-flow.js';
import type { Step } from './step.js';

function concurrency(def: MapState, input: unknown): number {
  if (def.MaxConcurrency !== undefined) return def.MaxConcurrency;
  if (def.MaxConcurrencyPath === undefined) return 0;
  const v = readPath(input, def.MaxConcurrencyPath);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new AslError('States.Runtime', `The value at MaxConcurrencyPath ${def.MaxConcurrencyPath} must be a non-negative integer, got ${json(v)}`);
  }
  return v;
}

/** Map (inline): InputPath, the items at ItemsPath, then iterations as spawned children, MaxConcurrency at a time. */
export function runMap(s: Step, name: string, def: MapState): void {
  const r = s.attempt(() => {
    const effective = applyInputPath(s.ctx.input, def.InputPath, s.co());
    const items = def.ItemsPath !== undefined ? readPath(effective, def.ItemsPath, s.co()) : effective;
    if (!Array.isArray(items)) {
      throw new AslError('States.Runtime', `Map state '${name}': the items (ItemsPath ${def.ItemsPath ?? '$'}) are not an array: ${json(items)}`);
    }
    return { effective, items, max: concurrency(def, effective) };
  });
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return;
  }
  const { effective, items, max } = r.value;
  s.record('MapStateStarted', { length: items.length });
  const visit = s.nextSeq();
  s.ctx.kids = { visit, ids: items.map(() => null), results: items.map(() => null), finished: 0, running: 0, next: 0, items, effective, max };
  if (items.length === 0) {
    s.record('MapStateSucceeded');
    finishWithResult(s, def, []);
    return;
  }
  s.ctx.go = GO_WAIT;
  startIterations(s, name, def);
}

/** Starts iterations while there are items and free slots (ItemSelector sees `$$.Map.Item`). */
function startIterations(s: Step, name: string, def: MapState): void {
  let k = s.ctx.kids!;
  const ids = [...k.ids];
  let { next, running } = k;
  const items = k.items!;
  while (next < items.length && (k.max === 0 || running < k.max!)) {
    const index = next;
    const co = { ...s.ctx.co, Map: { Item: { Index: index, Value: items[index] } } };
    const r = s.attempt(() => def.ItemSelector !== undefined
      ? evaluateTemplate(def.ItemSelector, k.effective, { ...s.co(), Map: co.Map })
      : items[index]);
    if (!r.ok) {
      s.ctx.kids = { ...k, ids, next, running };
      s.record('MapStateFailed');
      decideFault(s, def, r.fault);
      return;
    }
    const id = `${s.env.selfId}/${s.env.tagOf(name)}.${k.visit}.${index}`;
    ids[index] = id;
    s.record('MapIterationStarted', { name, index });
    s.spawn({ id, src: s.env.srcOf(name, 0), input: { data: r.value, co, execDeadline: null, budget: childBudget(s) } });
    next += 1;
    running += 1;
  }
  k = { ...k, ids, next, running };
  s.ctx.kids = k;
}

/** An iteration finished: keep its output in item order and start the next, or fail the state. */
export function mapKidDone(s: Step, name: string, def: MapState, actorId: string, out: SfnExecutionOutput): void {
  const k = s.ctx.kids!;
  const index = k.ids.indexOf(actorId);
  s.stops.push(actorId);
  if (out.status !== 'SUCCEEDED') {
    s.record('MapIterationFailed', { name, index });
    s.record('MapStateFailed');
    decideFault(s, def, { error: out.error ?? '', cause: out.cause ?? '' });
    return;
  }
  s.record('MapIterationSucceeded', { name, index });
  const results = [...k.results];
  results[index] = out.output;
  s.ctx.kids = { ...k, results, finished: k.finished + 1, running: k.running - 1 };
  if (k.finished + 1 === k.ids.length) {
    s.record('MapStateSucceeded');
    finishWithResult(s, def, results);
    return;
  }
  startIterations(s, name, def);
}
