/**
 * A Mermaid `stateDiagram-v2` generated from an XState v5 machine definition (by walking
 * `machine.root`): states (nested ones as composite states), initial and final markers, event
 * transitions, `always` transitions and delayed (`after`) transitions labelled with their delay
 * name, with guards in brackets. Transitions without a target on the machine itself (e.g. the
 * execution's wildcard that folds every history event) become a note.
 */

/** The part of XState's StateNode this generator reads. */
interface NodeLike {
  key: string;
  id: string;
  path: string[];
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  states: Record<string, NodeLike>;
  initial: { target: readonly NodeLike[] };
  after: readonly TransitionLike[];
  always?: readonly TransitionLike[];
  transitions: Map<string, readonly TransitionLike[]>;
}

interface TransitionLike {
  eventType: string;
  target: readonly NodeLike[] | undefined;
  guard?: unknown;
  reenter: boolean;
  delay?: unknown;
}

/** Anything with a root state node: an XState machine. */
export interface MachineLike {
  id: string;
  root: unknown;
}

/** Mermaid ids: the state's path joined with `_` (XState keys here are identifiers). */
function mid(n: NodeLike): string {
  return n.path.map((p) => p.replace(/[^A-Za-z0-9_]/g, '_')).join('_');
}

function guardLabel(g: unknown): string {
  if (g === undefined) return '';
  if (typeof g === 'string') return ` [${g}]`;
  if (typeof g === 'object' && g !== null && typeof (g as { type?: unknown }).type === 'string') return ` [${(g as { type: string }).type}]`;
  if (typeof g === 'function' && g.name && g.name !== 'guard') return ` [${g.name}]`;
  return ' [guarded]';
}

function delayLabel(d: unknown): string {
  if (typeof d === 'number') return `${d}ms`;
  if (typeof d === 'string') return d;
  return 'delay';
}

/** Mermaid reads a label to the end of the line; keep it to one line without `;` or `#`. */
function clean(label: string): string {
  return label.replace(/[\r\n;#]+/g, ' ').trim();
}

export function toMermaid(machine: MachineLike): string {
  const root = machine.root as NodeLike;
  const lines: string[] = ['stateDiagram-v2', `  %% ${machine.id}: generated from the XState machine definition`];
  const edges: string[] = [];

  const declare = (node: NodeLike, indent: string) => {
    const children = Object.values(node.states);
    const first = node.initial.target[0];
    if (first && node.type !== 'parallel') lines.push(`${indent}[*] --> ${mid(first)}`);
    children.forEach((child, i) => {
      if (node.type === 'parallel' && i > 0) lines.push(`${indent}--`);
      const id = mid(child);
      const nested = Object.keys(child.states).length > 0;
      if (id !== child.key) lines.push(`${indent}state "${child.key}" as ${id}`);
      if (nested) {
        lines.push(`${indent}state ${id} {`);
        declare(child, `${indent}  `);
        lines.push(`${indent}}`);
      } else if (id === child.key && child.type !== 'final') {
        lines.push(`${indent}${id}`);
      }
      if (child.type === 'final') lines.push(`${indent}${id} --> [*]`);
      collect(child);
    });
  };

  const edge = (source: NodeLike, t: TransitionLike, label: string) => {
    const targets = t.target && t.target.length > 0 ? t.target : [source];
    const suffix = !t.target || t.target.length === 0 ? ' (no state change)' : t.reenter && targets.includes(source) ? ' (reenter)' : '';
    for (const target of targets) edges.push(`  ${mid(source)} --> ${mid(target)} : ${clean(`${label}${guardLabel(t.guard)}${suffix}`)}`);
  };

  const collect = (node: NodeLike) => {
    for (const t of node.after) edge(node, t, `after ${delayLabel(t.delay)}`);
    for (const t of node.always ?? []) edge(node, t, 'always');
    for (const [eventType, ts] of node.transitions) {
      if (eventType.startsWith('xstate.after.')) continue; // the delayed ones, labelled above
      for (const t of ts) edge(node, t, eventType);
    }
  };

  declare(root, '  ');
  lines.push(...edges);

  // Transitions on the machine itself apply in every state; targetless ones change only context.
  const global: string[] = [];
  for (const [eventType, ts] of root.transitions) {
    for (const t of ts) {
      const to = t.target && t.target.length > 0 ? ` goes to ${t.target.map((n) => n.path.join('.')).join(', ')}` : ' (context only)';
      global.push(clean(`on ${eventType}${guardLabel(t.guard)} in every state${to}`));
    }
  }
  const anchor = root.initial.target[0];
  if (global.length > 0 && anchor) {
    lines.push(`  note right of ${mid(anchor)}`, ...global.map((g) => `    ${g}`), '  end note');
  }
  return `${lines.join('\n')}\n`;
}
