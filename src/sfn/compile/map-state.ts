import { applyInputPath } from '../asl/data-flow.js';
import { AslError } from '../asl/errors.js';
import { readPath } from '../asl/json-path.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { MapState } from '../asl/types.js';
import type { SfnExecutionOutput } from './contract.js';
import { GO_WAIT, json, visibleVariables, type Fault } from './graph-context.js';
import { unexpectedType } from '../asl/jsonata.js';
import { evalField, integerField, isJsonata } from './query.js';
import { isKid, keepResult, kidFault, kidIndex, newKids, resumeKids, startKids, type KidBuild } from './kids.js';
import { checkedJson, dataLimitFault } from './payload-limit.js';
import { decideFault } from './retry-catch.js';
import { finishWithResult } from './state-flow.js';
import type { Step } from './step.js';

/** AWS: an Inline Map state runs up to 40 iterations at once, whatever MaxConcurrency asks for. */
export const INLINE_MAP_CONCURRENCY = 40;

function concurrency(s: Step, def: MapState, input: unknown): number {
  let v: unknown = def.MaxConcurrency ?? 0;
  if (isJsonata(def) && def.MaxConcurrency !== undefined) v = integerField(s, def.MaxConcurrency, 'MaxConcurrency', 0);
  else if (def.MaxConcurrency === undefined && def.MaxConcurrencyPath !== undefined) {
    v = readPath(input, def.MaxConcurrencyPath);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new AslError('States.Runtime', `The value at MaxConcurrencyPath ${def.MaxConcurrencyPath} must be a non-negative integer, got ${json(v).slice(0, 200)}`);
    }
  }
  return v === 0 ? INLINE_MAP_CONCURRENCY : Math.min(v as number, INLINE_MAP_CONCURRENCY);
}

/**
 * The effective input and its items. JSONPath recomputes them when iterations start (the items are
 * not copied into the snapshot); JSONata evaluates Items once (an expression may not give the same
 * twice: $random, $uuid) and keeps them with the visit.
 */
export function itemsOf(s: Step, name: string, def: MapState): { effective: unknown; items: unknown[] } {
  if (isJsonata(def)) {
    const kept = s.ctx.kids?.input;
    if (Array.isArray(kept)) return { effective: s.ctx.input, items: kept };
    const items = def.Items === undefined ? s.ctx.input : evalField(s, def.Items, 'Items');
    if (!Array.isArray(items)) throw unexpectedType('Items', def.Items ?? '{% $states.input %}', 'array', items);
    return { effective: s.ctx.input, items };
  }
  const effective = applyInputPath(s.ctx.input, def.InputPath, s.co());
  const items = def.ItemsPath !== undefined ? readPath(effective, def.ItemsPath, s.co()) : effective;
  if (!Array.isArray(items)) {
    throw new AslError('States.Runtime', `Map state '${name}': the items (ItemsPath ${def.ItemsPath ?? '$'}) are not an array: ${json(items).slice(0, 200)}`);
  }
  return { effective, items };
}

/** Map (inline): InputPath, the items at ItemsPath, then iterations as spawned children, MaxConcurrency (≤ 40) at a time. */
export function runMap(s: Step, name: string, def: MapState): void {
  const r = s.attempt(() => {
    const { effective, items } = itemsOf(s, name, def);
    return { total: items.length, max: concurrency(s, def, effective), items };
  });
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return;
  }
  s.record('MapStateStarted', { length: r.value.total });
  s.ctx.kids = newKids(s, name, r.value.total, r.value.max);
  if (isJsonata(def)) s.ctx.kids.input = r.value.items;
  if (r.value.total === 0) {
    s.record('MapStateSucceeded', undefined, { link: { keep: true } });
    finishWithResult(s, def, []);
    return;
  }
  s.ctx.go = GO_WAIT;
  startIterations(s, name, def);
}

/** Starts iterations while there are items, free slots and room in this turn (ItemSelector sees `$$.Map.Item`). */
function startIterations(s: Step, name: string, def: MapState): void {
  if (s.ctx.kids!.next >= s.ctx.kids!.total) return;
  const got = s.attempt(() => itemsOf(s, name, def));
  if (!got.ok) {
    failMap(s, def, got.fault);
    return;
  }
  const { effective, items } = got.value;
  const outer = visibleVariables(s.ctx);
  const fault = startKids(s, (index): KidBuild => {
    const co = { ...s.ctx.co, Map: { Item: { Index: index, Value: items[index] } } };
    const r = s.attempt(() => {
      if (def.ItemSelector === undefined) return items[index];
      if (!isJsonata(def)) return evaluateTemplate(def.ItemSelector, effective, { ...s.co(), Map: co.Map });
      // `$states.context.Map.Item` is the item's.
      return evalField(s, def.ItemSelector, 'ItemSelector', { context: { ...s.co(), Map: co.Map } });
    });
    if (!r.ok) return { fault: r.fault };
    const j = checkedJson(r.value, name);
    if (!j.ok) return { fault: j.fault };
    // A slot's next iteration links to the last event of the one before it, the first ones to MapStateStarted.
    const kid = s.ctx.kids!.prefix + index;
    s.record('MapIterationStarted', { name, index }, { link: { pull: s.ctx.kids!.prefix, keep: true, seed: [kid] } });
    return { src: s.env.srcOf(name, 0), input: { data: r.value, co, execDeadline: null, outer } };
  });
  if (fault) failMap(s, def, fault);
}

/** The Map state fails (MapStateFailed unless a retrier takes it, as AWS records it); its slots' queue goes. */
function failMap(s: Step, def: MapState, fault: Fault): void {
  s.links.push({ op: 'drop', keys: [s.ctx.kids!.prefix] });
  decideFault(s, def, fault, () => s.record('MapStateFailed'));
}

/** The turn after a yield: start the next iterations. */
export function mapResume(s: Step, name: string, def: MapState): void {
  resumeKids(s);
  startIterations(s, name, def);
}

/** An iteration finished: keep its output in item order and start the next, or fail the state. */
export function mapKidDone(s: Step, name: string, def: MapState, actorId: string, out: SfnExecutionOutput): void {
  if (!isKid(s.ctx, actorId)) return;
  const index = kidIndex(s.ctx, actorId);
  const slots = s.ctx.kids!.prefix;
  s.stops.push(actorId);
  if (out.status !== 'SUCCEEDED') {
    // What follows (MapStateFailed, a retry's MapStateStarted) links to the iteration's last event.
    s.links.push({ op: 'join', into: s.env.selfId, from: [actorId] });
    s.record('MapIterationFailed', { name, index }, { link: { from: actorId, keep: true } });
    failMap(s, def, kidFault(out));
    return;
  }
  // The slot runs the next item from the iteration's last event; with none left, the state's close links here.
  const more = s.ctx.kids!.next < s.ctx.kids!.total;
  s.record('MapIterationSucceeded', { name, index }, { link: { from: actorId, keep: true, ...(more ? { push: slots } : { join: s.env.selfId }) } });
  if (!keepResult(s, actorId, out.output)) {
    failMap(s, def, dataLimitFault(name));
    return;
  }
  const k = s.ctx.kids!;
  if (k.finished === k.total) {
    s.record('MapStateSucceeded', undefined, { link: { keep: true, drop: [slots] } });
    finishWithResult(s, def, k.results);
    return;
  }
  startIterations(s, name, def);
}
