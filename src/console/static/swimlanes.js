// The user's workflow of an SWF run as swimlanes: what the decider asked for (activities, timers,
// child workflows, signals sent and received, markers), one lane per kind, from the history alone.
import { classify, clock, offset, svg } from './timeline.js';

const LANES = [
  ['activities', 'Activities'], ['timers', 'Timers'], ['children', 'Child workflows'], ['signals', 'Signals'], ['markers', 'Markers'],
];
const CLOSE = /^(ActivityTask(Completed|Failed|TimedOut|Canceled)|ChildWorkflowExecution(Completed|Failed|TimedOut|Canceled|Terminated)|Timer(Fired|Canceled)|ExternalWorkflowExecutionSignaled|SignalExternalWorkflowExecutionFailed|StartChildWorkflowExecutionFailed)$/;

/** The items of each lane: spans (from → to) and points, with a label and the state they ended in. */
export function workflowItems(events, now, info) {
  const end = info.closedAt ?? now;
  const items = [];
  const byKey = new Map();
  const open = (key, item) => { byKey.set(key, item); items.push(item); };
  for (const e of events) {
    const a = e.attrs;
    switch (e.type) {
      case 'ActivityTaskScheduled':
        open(`a${e.id}`, { lane: 'activities', label: `${a.activityType?.name ?? 'activity'} (${a.activityId})`, from: e.at, to: end, state: 'scheduled', open: true });
        break;
      case 'ActivityTaskStarted': { const i = byKey.get(`a${a.scheduledEventId}`); if (i) { i.state = 'started'; i.startedAt = e.at; } break; }
      case 'TimerStarted':
        open(`t${a.timerId}`, { lane: 'timers', label: `timer ${a.timerId} (${a.startToFireTimeout} s)`, from: e.at, to: end, state: 'started', open: true });
        break;
      case 'StartChildWorkflowExecutionInitiated':
        open(`c${e.id}`, { lane: 'children', label: `${a.workflowType?.name ?? 'child'} ${a.workflowId}`, from: e.at, to: end, state: 'initiated', open: true });
        break;
      case 'ChildWorkflowExecutionStarted': { const i = byKey.get(`c${a.initiatedEventId}`); if (i) { i.state = 'started'; i.startedAt = e.at; } break; }
      case 'SignalExternalWorkflowExecutionInitiated':
        open(`s${e.id}`, { lane: 'signals', label: `→ ${a.signalName} to ${a.workflowId}`, from: e.at, to: end, state: 'initiated', open: true });
        break;
      case 'WorkflowExecutionSignaled':
        items.push({ lane: 'signals', label: `← ${a.signalName}`, from: e.at, to: e.at, state: 'signal', point: true });
        break;
      case 'MarkerRecorded':
        items.push({ lane: 'markers', label: a.markerName, from: e.at, to: e.at, state: 'plain', point: true });
        break;
      default:
        if (CLOSE.test(e.type)) {
          const key = e.type.startsWith('ActivityTask') ? `a${a.scheduledEventId}` : e.type.startsWith('Timer') ? `t${a.timerId}`
            : /Child/.test(e.type) ? `c${a.initiatedEventId}` : `s${a.initiatedEventId}`;
          const i = byKey.get(key);
          if (i) { i.to = e.at; i.open = false; i.state = e.type.replace(/^(ActivityTask|ChildWorkflowExecution|Timer|ExternalWorkflowExecution|SignalExternalWorkflowExecution|StartChildWorkflowExecution)/, '').toLowerCase(); i.cls = classify(e.type); }
        }
    }
  }
  return items;
}

/** Packs a lane's items into rows so that no two overlap. */
function pack(items) {
  const rows = [];
  for (const it of items) {
    let r = rows.findIndex((last) => last < it.from);
    if (r < 0) { r = rows.length; rows.push(0); }
    rows[r] = Math.max(it.to, it.from + 1);
    it.row = r;
  }
  return Math.max(1, rows.length);
}

/** The swimlane chart (SVG); a lane shows "none" when the run has no such work. */
export function renderSwimlanes(events, info, now) {
  const items = workflowItems(events, now, info);
  const t0 = events[0]?.at ?? now;
  const end = Math.max(info.closedAt ?? now, events[events.length - 1]?.at ?? now);
  const LABEL = 130, W = 860, ROW = 20;
  const span = Math.max(1, end - t0);
  const X = (t) => LABEL + ((t - t0) / span) * (W - LABEL - 14);
  const root = svg('svg', { class: 'gantt swimlanes', width: W, role: 'img', 'aria-label': "the run's activities, timers, child workflows and signals" });
  let y = 4;
  for (const [lane, title] of LANES) {
    const mine = items.filter((i) => i.lane === lane);
    const rows = pack(mine);
    const g = svg('g', { class: 'lane', 'data-lane': lane, 'data-count': mine.length });
    const h = rows * ROW + 6;
    g.append(svg('rect', { x: 0, y, width: W, height: h, class: 'lane-bg' }), svg('text', { x: 4, y: y + 15, class: 'row-label' }, title));
    if (mine.length === 0) g.append(svg('text', { x: LABEL, y: y + 15, class: 'tick-label' }, 'none'));
    for (const it of mine) {
      const top = y + 3 + it.row * ROW;
      const title2 = svg('title', {}, `${it.label}: ${it.state} · ${clock(it.from)} ${offset(it.from - t0)}${it.point ? '' : ` → ${offset(it.to - t0)}`}`);
      const attrs = { class: `item ${it.cls ?? (it.open ? 'running' : it.state)}`, 'data-state': it.state, 'data-label': it.label };
      if (it.point) {
        const x = X(it.from);
        g.append(svg('g', attrs, svg('path', { d: `M${x},${top} l6,7 l-6,7 l-6,-7 z`, class: `mark ${it.state}` }), svg('text', { x: x + 8, y: top + 12, class: 'item-label' }, it.label), title2));
      } else {
        const x0 = X(it.from), x1 = Math.max(X(it.to), x0 + 3);
        g.append(svg('g', attrs, svg('rect', { x: x0, y: top, width: x1 - x0, height: ROW - 6, rx: 3, class: `seg ${it.open ? 'running' : `done ${it.cls ?? ''}`}` }),
          svg('text', { x: x0 + 3, y: top + 11, class: 'item-label' }, it.label), title2));
      }
    }
    root.append(g);
    y += h;
  }
  root.setAttribute('height', y + 4);
  root.setAttribute('viewBox', `0 0 ${W} ${y + 4}`);
  return root;
}
