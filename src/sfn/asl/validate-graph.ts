import { at, type Problems } from './definition-problems.js';
import type { QueryLanguage } from './validate-query-language.js';
import { isStateType, STATE_TYPES, validateState, type Transition } from './validate-states.js';
import { isObj, requireFields, typed } from './validate-values.js';

/**
 * A StartAt/States graph (the top level, a Parallel branch, a Map's ItemProcessor): state names,
 * types, transition targets, reachability from StartAt and the presence of a terminal state.
 */

const MAX_STATE_NAME = 80;
// Control characters are not allowed in state names (AWS: INVALID_STATE_NAME).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Every state name of the whole definition → where it was first seen (names are unique machine-wide). */
export type SeenNames = Map<string, string>;

/**
 * Validates the graph `value` at `path` (`''` for the top level). A nested state may transition only
 * within its own graph: a target in an enclosing graph is as missing as one that exists nowhere.
 * `machine` is the state machine's query language, which every state without its own inherits.
 */
export function validateGraph(p: Problems, seen: SeenNames, value: unknown, path: string, machine: QueryLanguage): void {
  if (!isObj(value)) {
    p.schema(path, 'The value must be an OBJECT');
    return;
  }
  // AWS lists them in this order: `These fields are required: [States, StartAt]`.
  requireFields(p, path, value, ['States', 'StartAt']);
  typed(p, path, value, 'Comment', 'STRING');
  const startAt = typed(p, path, value, 'StartAt', 'STRING') ? value.StartAt as string | undefined : undefined;
  if (value.States === undefined || !typed(p, path, value, 'States', 'OBJECT')) return;
  const states = value.States as Record<string, unknown>;
  const statesPath = at(path, 'States');
  const names = new Set(Object.keys(states));
  if (names.size === 0) p.schema(statesPath, 'Value cannot be empty');

  const ctx = { problems: p, machine, graph: (v: unknown, gp: string) => validateGraph(p, seen, v, gp, machine) };
  const edges = new Map<string, Transition[]>();
  let terminal = false;
  let typesKnown = true;
  for (const [name, state] of Object.entries(states)) {
    const statePath = at(statesPath, name);
    stateName(p, seen, name, statePath);
    if (!isObj(state)) {
      p.schema(statePath, 'The value must be an OBJECT');
      typesKnown = false;
      continue;
    }
    if (!requireFields(p, statePath, state, ['Type'])) {
      typesKnown = false;
      continue;
    }
    if (!isStateType(state.Type)) {
      p.schema(at(statePath, 'Type'), `The field 'Type' should have one of these values: [${STATE_TYPES.join(', ')}]`);
      typesKnown = false;
      continue;
    }
    edges.set(name, validateState(ctx, statePath, state.Type, state));
    if (state.End === true || state.Type === 'Succeed' || state.Type === 'Fail') terminal = true;
  }

  if (startAt !== undefined && !names.has(startAt)) p.add('MISSING_TRANSITION_TARGET', at(path, 'StartAt'), `Missing 'StartAt' target: ${startAt}`);
  let dangling = false;
  for (const transitions of edges.values()) {
    for (const t of transitions) {
      if (names.has(t.next)) continue;
      dangling = true;
      const field = t.path.slice(t.path.lastIndexOf('/') + 1);
      // AWS says the same whether the target is nowhere or outside this branch/iteration.
      p.add('MISSING_TRANSITION_TARGET', t.path, `Missing '${field}' target: ${t.next}`);
    }
  }
  if (startAt !== undefined && names.has(startAt) && typesKnown) {
    const reached = reachable(startAt, edges);
    for (const name of names) {
      if (!reached.has(name)) p.add('MISSING_TRANSITION_TARGET', at(statesPath, name), `State "${name}" is not reachable.`);
    }
  }
  // A missing target may be the intended way out; say nothing more until it is fixed.
  if (names.size > 0 && typesKnown && !dangling && !terminal) p.add('MISSING_END_STATE', statesPath, 'Workflow has no terminal state');
}

function stateName(p: Problems, seen: SeenNames, name: string, path: string): void {
  if (name.length === 0 || name.length > MAX_STATE_NAME) {
    p.add('INVALID_STATE_NAME', path, `State name must be between 1 and ${MAX_STATE_NAME} characters long`);
  } else if (CONTROL.test(name)) {
    p.add('INVALID_STATE_NAME', path, 'State name must not contain control characters');
  }
  const first = seen.get(name);
  if (first !== undefined) p.add('DUPLICATE_STATE_NAME', path, `Duplicate State name: ${name}`);
  else seen.set(name, path);
}

function reachable(startAt: string, edges: ReadonlyMap<string, Transition[]>): Set<string> {
  const reached = new Set([startAt]);
  const queue = [startAt];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    for (const t of edges.get(name) ?? []) {
      if (!reached.has(t.next) && edges.has(t.next)) {
        reached.add(t.next);
        queue.push(t.next);
      }
    }
  }
  return reached;
}
