// A Step Functions state machine drawn from its States Language definition: every state a box,
// Parallel branches and Map iterations as nested groups (elk compound nodes), Choice rules and
// Default, Catch and Retry edges labelled and styled apart, Start and End per (sub)graph.
// Laid out by elkjs (its browser bundle is served by the node: /console/static/vendor/elk.bundled.js).
import { svg } from './timeline.js';

let elk;
/** The ELK instance, loading the bundle on first use (a classic script that defines window.ELK). */
async function layoutEngine() {
  if (elk) return elk;
  if (!window.ELK) {
    await new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = '/console/static/vendor/elk.bundled.js';
      s.onload = resolve;
      s.onerror = () => reject(new Error('could not load elk.bundled.js'));
      document.head.append(s);
    });
  }
  elk = new window.ELK();
  return elk;
}

const OPS = {
  StringEquals: '==', NumericEquals: '==', BooleanEquals: '==', TimestampEquals: '==',
  NumericLessThan: '<', StringLessThan: '<', TimestampLessThan: '<', NumericGreaterThan: '>', StringGreaterThan: '>', TimestampGreaterThan: '>',
  NumericLessThanEquals: '<=', StringLessThanEquals: '<=', TimestampLessThanEquals: '<=',
  NumericGreaterThanEquals: '>=', StringGreaterThanEquals: '>=', TimestampGreaterThanEquals: '>=',
  StringMatches: 'matches', IsPresent: 'is present', IsNull: 'is null', IsNumeric: 'is numeric', IsString: 'is string', IsBoolean: 'is boolean', IsTimestamp: 'is timestamp',
};

/** A Choice rule as short text: `$.n > 5`, `$.a == "x" and $.b is present`, a JSONata Condition as written. */
export function ruleText(rule) {
  if (typeof rule.Condition === 'string') return rule.Condition;
  if (Array.isArray(rule.And)) return rule.And.map((r) => `(${ruleText(r)})`).join(' and ');
  if (Array.isArray(rule.Or)) return rule.Or.map((r) => `(${ruleText(r)})`).join(' or ');
  if (rule.Not) return `not (${ruleText(rule.Not)})`;
  for (const [k, v] of Object.entries(rule)) {
    if (k === 'Variable' || k === 'Next' || k === 'Comment' || k === 'Assign' || k === 'Output') continue;
    const path = k.endsWith('Path');
    const op = OPS[path ? k.slice(0, -4) : k] ?? k;
    const value = path ? v : typeof v === 'string' ? JSON.stringify(v) : String(v);
    return /^is /.test(op) ? `${rule.Variable} ${v ? op : op.replace('is ', 'is not ')}` : `${rule.Variable} ${op} ${value}`;
  }
  return '?';
}

const textWidth = (t, px = 7) => Math.min(260, 16 + t.length * px);
const label = (text) => ({ text, width: textWidth(text, 6), height: 14 });
const clip = (t, n = 46) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

/** The elk graph of one (sub)graph: its states, Start and End, and the edges between them. */
function level(graph, scope) {
  const id = (name) => `${scope}/${name}`;
  const start = `${scope}#start`, end = `${scope}#end`;
  const children = [{ id: start, width: 44, height: 22, kind: 'start' }, { id: end, width: 44, height: 22, kind: 'end' }];
  const edges = [];
  let n = 0;
  const edge = (from, to, cls, text) => edges.push({ id: `${scope}#e${n++}`, sources: [from], targets: [to], cls, labels: text ? [label(clip(text))] : [] });
  edge(start, id(graph.StartAt), 'next');
  for (const [name, s] of Object.entries(graph.States ?? {})) {
    const sub = s.Type === 'Parallel' ? (s.Branches ?? []).map((b, i) => ({ graph: b, title: `branch ${i + 1}` }))
      : s.Type === 'Map' ? [{ graph: s.ItemProcessor ?? s.Iterator ?? { States: {} }, title: 'each item' }] : [];
    const node = { id: id(name), name, type: s.Type, kind: sub.length || s.Type === 'Map' ? 'group' : 'state' };
    if (node.kind === 'group') {
      node.layoutOptions = { 'elk.padding': '[top=30,left=12,bottom=12,right=12]', 'elk.direction': s.Type === 'Parallel' ? 'RIGHT' : 'DOWN' };
      node.children = sub.map((b, i) => {
        const inner = level(b.graph, `${id(name)}#${i}`);
        return { id: `${id(name)}#${i}`, kind: 'branch', title: b.title, layoutOptions: { 'elk.padding': '[top=24,left=10,bottom=10,right=10]', 'elk.direction': 'DOWN' }, ...inner };
      });
      node.width = textWidth(name) + 40;
    } else {
      node.width = Math.max(textWidth(name), textWidth(s.Type, 6)) + 8;
      node.height = 42;
    }
    children.push(node);
    if (s.Type === 'Choice') {
      (s.Choices ?? []).forEach((c) => edge(id(name), id(c.Next), 'choice', ruleText(c)));
      if (s.Default) edge(id(name), id(s.Default), 'default', 'Default');
    } else if (s.Next) edge(id(name), id(s.Next), 'next');
    else if (s.End || s.Type === 'Succeed' || s.Type === 'Fail') edge(id(name), end, s.Type === 'Fail' ? 'fail' : 'next');
    for (const r of s.Retry ?? []) edge(id(name), id(name), 'retry', `Retry ${(r.ErrorEquals ?? []).join(', ')} ×${r.MaxAttempts ?? 3}`);
    for (const c of s.Catch ?? []) edge(id(name), id(c.Next), 'catch', `Catch ${(c.ErrorEquals ?? []).join(', ')}`);
  }
  return { children, edges };
}

/** Lays out a definition (an object); resolves to the positioned elk graph. */
export async function layoutDefinition(definition) {
  const root = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered', 'elk.direction': 'DOWN', 'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36', 'elk.spacing.nodeNode': '28', 'elk.spacing.edgeLabel': '4',
      'elk.edgeLabels.inline': 'false', 'elk.hierarchyHandling': 'SEPARATE_CHILDREN',
    },
    ...level(definition, 'm'),
  };
  return (await layoutEngine()).layout(root);
}

/** Draws a laid-out graph; every state is `g.sfn-state[data-state=<name>]`, every group `g.sfn-group`. */
export function renderGraph(laid, onPick) {
  const W = Math.ceil(laid.width), H = Math.ceil(laid.height);
  const root = svg('svg', { class: 'sfn-graph', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'the state machine' },
    svg('defs', {}, svg('marker', { id: 'sfn-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow' }))));
  const edgesLayer = svg('g', { class: 'edges' });
  const draw = (node, ox, oy, parent) => {
    const x = ox + (node.x ?? 0), y = oy + (node.y ?? 0);
    if (node.kind === 'start' || node.kind === 'end') {
      parent.append(svg('g', { class: `sfn-terminal ${node.kind}`, 'data-terminal': node.kind },
        svg('rect', { x, y, width: node.width, height: node.height, rx: 11 }),
        svg('text', { x: x + node.width / 2, y: y + 15, 'text-anchor': 'middle' }, node.kind === 'start' ? 'Start' : 'End')));
    } else if (node.kind === 'state') {
      const g = svg('g', { class: 'sfn-state', 'data-state': node.name, 'data-type': node.type, 'data-status': 'idle', tabindex: 0 },
        svg('rect', { x, y, width: node.width, height: node.height, rx: 6 }),
        svg('text', { x: x + node.width / 2, y: y + 18, 'text-anchor': 'middle', class: 'name' }, node.name),
        svg('text', { x: x + node.width / 2, y: y + 33, 'text-anchor': 'middle', class: 'type' }, node.type));
      g.addEventListener('click', () => onPick?.(node.name));
      parent.append(g);
    } else if (node === laid) {
      for (const c of node.children ?? []) draw(c, x, y, parent);
    } else if (node.kind === 'group' || node.kind === 'branch') {
      const g = node.kind === 'group'
        ? svg('g', { class: `sfn-group ${node.type.toLowerCase()}`, 'data-state': node.name, 'data-type': node.type, 'data-status': 'idle', tabindex: 0 })
        : svg('g', { class: 'sfn-branch' });
      g.append(svg('rect', { x, y, width: node.width, height: node.height, rx: 8 }),
        svg('text', { x: x + 8, y: y + (node.kind === 'group' ? 18 : 16), class: node.kind === 'group' ? 'name' : 'type' },
          node.kind === 'group' ? `${node.name} · ${node.type}` : node.title));
      if (node.kind === 'group') g.firstChild.addEventListener('click', () => onPick?.(node.name));
      parent.append(g);
      for (const c of node.children ?? []) draw(c, x, y, g);
    }
    for (const e of node.edges ?? []) drawEdge(e, node === laid ? 0 : x, node === laid ? 0 : y);
  };
  const drawEdge = (e, ox, oy) => {
    for (const s of e.sections ?? []) {
      const pts = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p) => `${ox + p.x},${oy + p.y}`);
      edgesLayer.append(svg('path', { d: `M${pts.join(' L')}`, class: `edge ${e.cls}`, 'data-edge': e.cls, 'marker-end': 'url(#sfn-arrow)' }));
    }
    for (const l of e.labels ?? []) {
      edgesLayer.append(svg('text', { x: ox + (l.x ?? 0), y: oy + (l.y ?? 0) + 11, class: `edge-label ${e.cls}` }, l.text));
    }
  };
  const nodes = svg('g', { class: 'nodes' });
  draw(laid, 0, 0, nodes);
  root.append(nodes, edgesLayer);
  return root;
}

/** Sets `data-status` on every state and group from the statuses (a Map name → status). */
export function paintStatus(root, statuses) {
  const running = [];
  for (const g of root.querySelectorAll('[data-state]')) {
    const st = statuses.get(g.dataset.state);
    const s = st?.status ?? 'idle';
    g.dataset.status = s;
    if (g.dataset.type === 'Map' && st?.iterations) {
      g.dataset.iterations = String(st.iterations);
      g.querySelector(':scope > text.name').textContent = `${g.dataset.state} · Map · ${st.iterations} iteration${st.iterations === 1 ? '' : 's'}`;
    }
    if (s === 'running') running.push(g.dataset.state);
  }
  root.dataset.running = running.join(',');
}
