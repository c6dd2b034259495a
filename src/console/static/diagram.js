// State diagrams of the engine's XState machines, drawn as SVG from the graphs that
// /console/api/machines derives from the machine definitions (src/console/machine-graph.ts).
// Layout: states are ranked left to right by the longest path from the initial state (back
// edges ignored); the children of a compound state share one column inside a dashed cluster;
// transitions between neighbouring columns are curves labelled just before their arrowheads
// (labels that would overlap move down); transitions that skip columns run in lanes below the
// states; self transitions loop above their state.

const NS = 'http://www.w3.org/2000/svg';
const NODE_H = 32;
const ROW_GAP = 16;
const CHAR_W = 7.4;
const LABEL_CHAR_W = 6.3;
const LINE_H = 13;
const MARGIN = 14;
const CLUSTER_PAD = 10;
const CLUSTER_HEAD = 20;
const MIN_GAP = 60;
const LOOP_H = 34;

let svgSerial = 0;

function el(name, attrs = {}, ...children) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, String(v));
  for (const c of children) if (c !== undefined && c !== null) e.append(c);
  return e;
}

/** Time left until a deadline, for labels: "in 4.2 s", "in 59 min", "due". */
export function formatIn(ms) {
  if (ms <= 0) return 'due';
  if (ms < 10_000) return `in ${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `in ${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `in ${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `in ${(ms / 3_600_000).toFixed(1)} h`;
  return `in ${Math.round(ms / 86_400_000)} d`;
}

/** Refreshes every countdown on the page (elements with data-deadline, epoch ms), given the server clock's offset. */
export function tickDeadlines(skewMs) {
  const now = Date.now() + skewMs;
  for (const e of document.querySelectorAll('[data-deadline]')) {
    const text = formatIn(Number(e.getAttribute('data-deadline')) - now);
    if (e.textContent !== text) e.textContent = text;
  }
}

/** Positions of states, clusters and edge groups for one machine graph (pure: no DOM). */
export function layoutMachine(graph) {
  const byPath = new Map(graph.states.map((s) => [s.path, s]));
  const isCompound = (s) => s && (s.type === 'compound' || s.type === 'parallel');
  const leafOf = (p) => {
    let s = byPath.get(p);
    for (let i = 0; s && isCompound(s) && i < 20; i++) s = byPath.get(s.initial);
    return s ? s.path : p;
  };
  const boxes = graph.states.filter((s) => !isCompound(s));
  const order = new Map(graph.states.map((s, i) => [s.path, i]));

  // Edge groups: one drawn edge per (source, target), its labels one per line.
  const groups = new Map();
  for (const t of graph.transitions) {
    if (!byPath.has(t.source) || !byPath.has(t.target)) continue;
    const k = `${t.source}\u0000${t.target}`;
    let g = groups.get(k);
    if (!g) { g = { source: t.source, target: t.target, lines: [] }; groups.set(k, g); }
    if (!g.lines.some((l) => l.label === t.label)) g.lines.push({ label: t.label, kind: t.kind, delay: t.delay, guard: t.guard });
  }

  // Ranks: longest path from the initial state over the DAG left when back edges are dropped.
  const out = new Map(boxes.map((b) => [b.path, []]));
  for (const g of groups.values()) {
    const s = leafOf(g.source), d = leafOf(g.target);
    if (s !== d && out.has(s) && out.has(d)) out.get(s).push(d);
  }
  const mark = new Map();
  const post = [];
  const back = new Set();
  const visit = (n) => {
    mark.set(n, 1);
    for (const m of out.get(n) ?? []) {
      if (mark.get(m) === 1) back.add(`${n}\u0000${m}`);
      else if (!mark.has(m)) visit(m);
    }
    mark.set(n, 2);
    post.push(n);
  };
  if (out.has(leafOf(graph.initial))) visit(leafOf(graph.initial));
  for (const b of boxes) if (!mark.has(b.path)) visit(b.path);
  const topo = post.reverse();
  const rank = new Map(topo.map((n) => [n, 0]));
  for (const n of topo) {
    for (const m of out.get(n)) if (!back.has(`${n}\u0000${m}`)) rank.set(m, Math.max(rank.get(m), rank.get(n) + 1));
  }
  // The children of one compound state form one column.
  for (const c of graph.states.filter(isCompound)) {
    const kids = boxes.filter((b) => b.parent === c.path);
    const r = Math.max(0, ...kids.map((k) => rank.get(k.path)));
    for (const k of kids) rank.set(k.path, r);
  }
  const rankOf = (p) => rank.get(leafOf(p)) ?? 0;
  const maxRank = Math.max(0, ...rank.values());

  const labelSize = (lines) => ({
    w: Math.max(...lines.map((l) => l.label.length + (l.kind === 'after' ? 12 : 0))) * LABEL_CHAR_W + 10,
    h: lines.length * LINE_H + 4,
  });
  const adjacent = [];
  const skipping = [];
  const loops = [];
  for (const g of groups.values()) {
    g.size = labelSize(g.lines);
    if (g.source === g.target) loops.push(g);
    else if (rankOf(g.target) === rankOf(g.source) + 1) adjacent.push(g);
    else skipping.push(g);
  }

  // Columns: widths, and gaps wide enough for the labels between them.
  const boxW = (s) => Math.max(74, s.key.length * CHAR_W + 26);
  const colW = Array.from({ length: maxRank + 1 }, () => 0);
  for (const b of boxes) colW[rank.get(b.path)] = Math.max(colW[rank.get(b.path)], boxW(b) + (b.parent ? 2 * CLUSTER_PAD : 0));
  const gap = Array.from({ length: maxRank }, () => MIN_GAP);
  for (const g of adjacent) gap[rankOf(g.source)] = Math.max(gap[rankOf(g.source)], g.size.w + 36);
  const top = MARGIN + (loops.length ? LOOP_H + Math.max(...loops.map((l) => l.size.h)) : 0);
  const colX = [];
  let x = MARGIN + 12; // room for the initial-state dot
  for (let r = 0; r <= maxRank; r++) { colX.push(x); x += colW[r] + (gap[r] ?? 0); }

  // Rows: each column stacks its states (grouped by parent), then columns are centred.
  const pos = new Map();
  const clusters = new Map();
  const colH = [];
  for (let r = 0; r <= maxRank; r++) {
    const col = boxes.filter((b) => rank.get(b.path) === r)
      .sort((a, b) => (order.get(a.parent) ?? -1) - (order.get(b.parent) ?? -1) || order.get(a.path) - order.get(b.path));
    let y = 0;
    let parent = null;
    for (const b of col) {
      if (b.parent !== parent) {
        if (parent) y += CLUSTER_PAD + ROW_GAP;
        if (b.parent) y += CLUSTER_HEAD;
        parent = b.parent;
      }
      const w = boxW(b);
      pos.set(b.path, { x: colX[r] + (colW[r] - w) / 2, y, w, h: NODE_H, rank: r });
      y += NODE_H + ROW_GAP;
    }
    if (parent) y += CLUSTER_PAD;
    colH.push(Math.max(0, y - ROW_GAP));
  }
  const tallest = Math.max(NODE_H, ...colH);
  for (const p of pos.values()) p.y += top + (tallest - colH[p.rank]) / 2;
  for (const c of graph.states.filter(isCompound)) {
    const kids = [...pos.entries()].filter(([k]) => k.startsWith(`${c.path}.`)).map(([, p]) => p);
    if (kids.length === 0) continue;
    const x0 = Math.min(...kids.map((p) => p.x)) - CLUSTER_PAD, x1 = Math.max(...kids.map((p) => p.x + p.w)) + CLUSTER_PAD;
    const y0 = Math.min(...kids.map((p) => p.y)) - CLUSTER_PAD - CLUSTER_HEAD + 6, y1 = Math.max(...kids.map((p) => p.y + p.h)) + CLUSTER_PAD;
    clusters.set(c.path, { x: x0, y: y0, w: x1 - x0, h: y1 - y0, key: c.key });
  }
  const rectOf = (p) => pos.get(p) ?? clusters.get(p);

  // Neighbouring columns: a cubic from the source's right side to the target's left side.
  const cubic = (x0, y0, x1, y1, t) => {
    const dx = (x1 - x0) / 2;
    const u = 1 - t;
    return {
      x: u * u * u * x0 + 3 * u * u * t * (x0 + dx) + 3 * u * t * t * (x1 - dx) + t * t * t * x1,
      y: y0 + (y1 - y0) * (3 * t * t - 2 * t * t * t),
    };
  };
  for (const g of adjacent) {
    const s = rectOf(g.source), d = rectOf(g.target);
    g.from = { x: s.x + s.w, y: s.y + s.h / 2 };
    g.to = { x: d.x, y: d.y + d.h / 2 };
    g.path = `M${g.from.x},${g.from.y} C${(g.from.x + g.to.x) / 2},${g.from.y} ${(g.from.x + g.to.x) / 2},${g.to.y} ${g.to.x},${g.to.y}`;
    // The label sits just before the arrowhead, where edges that fan out are far apart.
    const want = g.to.x - g.size.w / 2 - 12;
    let a = 0, b = 1;
    for (let i = 0; i < 30; i++) { const m = (a + b) / 2; cubic(g.from.x, g.from.y, g.to.x, g.to.y, m).x < want ? a = m : b = m; }
    g.label = cubic(g.from.x, g.from.y, g.to.x, g.to.y, (a + b) / 2);
  }
  // Labels that overlap in one gap move down.
  for (let r = 0; r < maxRank; r++) {
    const inGap = adjacent.filter((g) => rankOf(g.source) === r).sort((a, b) => a.label.y - b.label.y);
    let bottom = -Infinity;
    for (const g of inGap) {
      const want = Math.max(g.label.y, bottom + g.size.h / 2 + 3);
      // Move down only: the label stays clear of the target column whatever its new height.
      if (want !== g.label.y) g.label = { x: g.label.x, y: want };
      bottom = g.label.y + g.size.h / 2;
    }
  }
  let maxY = Math.max(top + tallest, ...[...clusters.values()].map((c) => c.y + c.h), ...adjacent.map((g) => g.label.y + g.size.h / 2));
  // Lanes below everything for transitions that skip columns (or go back).
  let lane = maxY + 18;
  for (const g of skipping.sort((a, b) => rankOf(a.source) - rankOf(b.source) || rankOf(a.target) - rankOf(b.target))) {
    const s = rectOf(g.source), d = rectOf(g.target);
    const ly = lane + g.size.h / 2;
    const sx = s.x + s.w / 2, sb = s.y + s.h;
    const forward = d.x > s.x + s.w;
    const mx = forward ? (s.x + s.w + d.x) / 2 : (sx + d.x + d.w / 2) / 2;
    if (forward) {
      const tx = d.x, ty = d.y + d.h / 2, bend = Math.min(40, (d.x - (s.x + s.w)) / 2);
      g.path = `M${sx},${sb} C${sx},${ly} ${sx},${ly} ${mx},${ly} C${tx - bend},${ly} ${tx - bend},${ty} ${tx},${ty}`;
    } else {
      const tx = d.x + d.w / 2, tb = d.y + d.h;
      g.path = `M${sx},${sb} C${sx},${ly} ${sx},${ly} ${mx},${ly} C${tx},${ly} ${tx},${ly} ${tx},${tb}`;
    }
    g.label = { x: mx, y: ly + g.size.h / 2 + 4 };
    lane += g.size.h + 22;
    maxY = g.label.y + g.size.h / 2;
  }
  for (const g of loops) {
    const s = rectOf(g.source);
    const cx = s.x + s.w / 2;
    g.path = `M${cx - 12},${s.y} C${cx - 34},${s.y - LOOP_H} ${cx + 34},${s.y - LOOP_H} ${cx + 12},${s.y}`;
    g.label = { x: cx, y: s.y - LOOP_H + 2 - g.size.h / 2 };
  }
  const width = Math.max(x - (gap[maxRank] ?? 0), ...[...groups.values()].map((g) => g.label.x + g.size.w / 2)) + MARGIN;
  const init = pos.get(leafOf(graph.initial));
  return { pos, clusters, edges: [...groups.values()], width, height: maxY + MARGIN, initial: init };
}

/**
 * Draws a machine: `current` (dotted path) highlighted, the transitions leaving it emphasised,
 * `armed` timeouts ([{ delay, target, deadline }]) marked on their transitions with a countdown.
 */
export function renderMachine(graph, opts = {}) {
  const L = layoutMachine(graph);
  const id = `m${++svgSerial}`;
  const current = opts.current ?? null;
  const active = new Set();
  if (current) { const parts = current.split('.'); for (let i = 1; i <= parts.length; i++) active.add(parts.slice(0, i).join('.')); }
  const armed = new Map((opts.armed ?? []).map((a) => [a.delay, a]));
  const svg = el('svg', {
    class: 'machine', viewBox: `0 0 ${Math.ceil(L.width)} ${Math.ceil(L.height)}`, width: Math.ceil(L.width), height: Math.ceil(L.height),
    'data-machine': graph.id, 'data-current': current ?? '', role: 'img', 'aria-label': `${graph.id} state diagram${current ? `, current state ${current}` : ''}`,
  });
  svg.append(el('defs', {},
    ...['plain', 'hot', 'armed'].map((kind) => el('marker', {
      id: `${id}-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse',
    }, el('path', { d: 'M0,0 L10,5 L0,10 z', class: `arrow ${kind}` })))));
  for (const [path, c] of L.clusters) {
    svg.append(el('g', { class: `cluster${active.has(path) ? ' active' : ''}`, 'data-state': path },
      el('rect', { x: c.x, y: c.y, width: c.w, height: c.h, rx: 10 }),
      el('text', { x: c.x + 8, y: c.y + 14, class: 'cluster-label' }, c.key)));
  }
  if (L.initial) {
    const y = L.initial.y + L.initial.h / 2;
    svg.append(el('circle', { cx: L.initial.x - 14, cy: y, r: 4, class: 'initial-dot' }),
      el('path', { d: `M${L.initial.x - 10},${y} L${L.initial.x - 1},${y}`, class: 'edge', 'marker-end': `url(#${id}-plain)` }));
  }
  const edgeLayer = el('g', { class: 'edges' });
  const labelLayer = el('g', { class: 'labels' });
  for (const g of L.edges) {
    const hot = active.has(g.source);
    const isArmed = hot && g.lines.some((l) => l.kind === 'after' && armed.has(l.delay));
    const kind = isArmed ? 'armed' : hot ? 'hot' : 'plain';
    edgeLayer.append(el('path', {
      d: g.path, class: `edge ${kind}`, 'marker-end': `url(#${id}-${kind})`, 'data-source': g.source, 'data-target': g.target,
    }, el('title', {}, g.lines.map((l) => `${l.label}${l.guard ? ` [${l.guard}]` : ''}`).join('\n'))));
    const text = el('text', { x: g.label.x, y: g.label.y - g.size.h / 2 + 2 + LINE_H - 3, class: 'edge-label', 'text-anchor': 'middle' });
    g.lines.forEach((l, i) => {
      const a = hot && l.kind === 'after' ? armed.get(l.delay) : undefined;
      const span = el('tspan', { x: g.label.x, dy: i === 0 ? 0 : LINE_H, class: `${l.kind}${a ? ' armed' : ''}` }, l.label);
      if (a) span.append(' · ', el('tspan', { 'data-deadline': a.deadline, class: 'countdown' }, formatIn(a.deadline - (opts.now ?? Date.now()))));
      text.append(span);
    });
    labelLayer.append(el('rect', {
      x: g.label.x - g.size.w / 2, y: g.label.y - g.size.h / 2, width: g.size.w, height: g.size.h, rx: 3, class: `label-bg${isArmed ? ' armed' : ''}`,
    }), text);
  }
  svg.append(edgeLayer);
  for (const [path, p] of L.pos) {
    const state = graph.states.find((s) => s.path === path);
    const isCurrent = current === path;
    const g = el('g', {
      class: `state${isCurrent ? ' current' : ''}${state.type === 'final' ? ' final' : ''}`, 'data-state': path, 'data-current': isCurrent ? 'true' : 'false',
    }, el('rect', { x: p.x, y: p.y, width: p.w, height: p.h, rx: 8 }));
    if (state.type === 'final') g.append(el('rect', { x: p.x + 3, y: p.y + 3, width: p.w - 6, height: p.h - 6, rx: 6, class: 'inner' }));
    g.append(el('text', { x: p.x + p.w / 2, y: p.y + p.h / 2 + 4.5, 'text-anchor': 'middle' }, state.key));
    svg.append(g);
  }
  svg.append(labelLayer);
  return svg;
}
