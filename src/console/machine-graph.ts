import type { AnyStateMachine } from 'xstate';

/** One state of a machine, by its path from the root (`open`, `closed.completed`). */
export interface GraphState {
  path: string;
  key: string;
  /** Path of the enclosing compound state, or null under the root. */
  parent: string | null;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** For a compound state: the path of its initial child. */
  initial?: string;
}

/** One transition with a target: an event, a delayed (`after`) or an eventless (`always`) one. */
export interface GraphTransition {
  source: string;
  target: string;
  kind: 'event' | 'after' | 'always';
  /** The event type, `after <delay>` or `always`. */
  label: string;
  /** For `after`: the named delay; its deadline is the context member `<delay>Deadline`. */
  delay?: string;
  guard?: string;
  reenter?: boolean;
}

/** A machine definition as the console draws it. */
export interface MachineGraph {
  id: string;
  initial: string;
  states: GraphState[];
  transitions: GraphTransition[];
  /** Transitions without a target (context updates only), as `state: event` labels. */
  internal: string[];
}

interface NodeLike {
  id: string;
  key: string;
  type: GraphState['type'];
  parent?: NodeLike;
  states: Record<string, NodeLike>;
  initial?: { target?: readonly NodeLike[] };
  transitions: Map<string, readonly TransitionLike[]>;
  after: readonly TransitionLike[];
  always?: readonly TransitionLike[];
}

interface TransitionLike {
  target?: readonly NodeLike[];
  guard?: unknown;
  reenter?: boolean;
  delay?: string | number;
  eventType: string;
}

function guardName(g: unknown): string | undefined {
  if (typeof g === 'string') return g;
  if (g && typeof g === 'object' && typeof (g as { type?: unknown }).type === 'string') return (g as { type: string }).type;
  if (typeof g === 'function' && g.name && g.name !== 'guard') return g.name;
  return g ? 'guard' : undefined;
}

/**
 * Walks `machine.root`: every state node with its children, and every transition with a target
 * (`on`, `after` with its named delay, `always`), in definition order. Pure data, sent to the page.
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as unknown as NodeLike;
  const rootPrefix = `${root.id}.`;
  const pathOf = (n: NodeLike) => (n.id.startsWith(rootPrefix) ? n.id.slice(rootPrefix.length) : n.id);
  const states: GraphState[] = [];
  const transitions: GraphTransition[] = [];
  const internal: string[] = [];
  const add = (source: NodeLike, t: TransitionLike, kind: GraphTransition['kind'], label: string) => {
    const from = source === root ? '(any)' : pathOf(source);
    if (!t.target || t.target.length === 0) {
      internal.push(`${from}: ${label}`);
      return;
    }
    for (const target of t.target) {
      const tr: GraphTransition = { source: from, target: pathOf(target), kind, label };
      if (kind === 'after') tr.delay = String(t.delay);
      const guard = guardName(t.guard);
      if (guard) tr.guard = guard;
      if (t.reenter) tr.reenter = true;
      transitions.push(tr);
    }
  };
  const walk = (n: NodeLike) => {
    if (n !== root) {
      const s: GraphState = { path: pathOf(n), key: n.key, parent: n.parent && n.parent !== root ? pathOf(n.parent) : null, type: n.type };
      const init = n.initial?.target?.[0];
      if (n.type === 'compound' && init) s.initial = pathOf(init);
      states.push(s);
    }
    for (const [eventType, ts] of n.transitions) {
      if (eventType.startsWith('xstate.after.')) continue; // listed once, with their delays, below
      for (const t of ts) add(n, t, 'event', eventType);
    }
    for (const t of n.after) add(n, t, 'after', `after ${String(t.delay)}`);
    for (const t of n.always ?? []) add(n, t, 'always', 'always');
    for (const child of Object.values(n.states)) walk(child);
  };
  walk(root);
  const initial = root.initial?.target?.[0];
  return { id: root.id, initial: initial ? pathOf(initial) : states[0]?.path ?? '', states, transitions, internal };
}

/** An XState state value as a dotted path: `open`, `{ closed: 'completed' }` → `closed.completed`. */
export function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const [k, v] = Object.entries(value as Record<string, unknown>)[0] ?? [];
    if (k === undefined) return '';
    const rest = statePath(v);
    return rest ? `${k}.${rest}` : k;
  }
  return '';
}

/** A delayed transition armed in the current state: its delay, target and absolute deadline (epoch ms). */
export interface ArmedTimeout {
  delay: string;
  target: string;
  deadline: number;
}

/**
 * The `after` transitions of the current state and its ancestors whose deadline is set. By the
 * machines' convention the delay `<name>` reads its deadline from the context member
 * `<name>Deadline` (null = NONE, never fires: the guards check exactly that).
 */
export function armedTimeouts(graph: MachineGraph, path: string, context: Record<string, unknown>): ArmedTimeout[] {
  const active = new Set<string>();
  const parts = path.split('.');
  for (let i = 1; i <= parts.length; i++) active.add(parts.slice(0, i).join('.'));
  const out: ArmedTimeout[] = [];
  const seen = new Set<string>();
  for (const t of graph.transitions) {
    if (t.kind !== 'after' || !active.has(t.source) || !t.delay || seen.has(t.delay)) continue;
    const deadline = context[`${t.delay}Deadline`];
    if (typeof deadline !== 'number') continue;
    seen.add(t.delay);
    out.push({ delay: t.delay, target: t.target, deadline });
  }
  return out.sort((a, b) => a.deadline - b.deadline);
}
