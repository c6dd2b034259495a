// The history of a run as a timeline: a Gantt chart of the run and its tasks, and the event list
// with timeouts and failures highlighted and every event's attributes expandable.

const NS = 'http://www.w3.org/2000/svg';

export function svg(name, attrs = {}, ...children) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  for (const c of children) if (c !== undefined && c !== null) e.append(c);
  return e;
}

/** A CSS class per kind of event: timeouts and failures stand out. */
export function classify(type) {
  if (/TimedOut$/.test(type)) return 'timeout';
  if (/Failed$/.test(type) || type === 'WorkflowExecutionTerminated') return 'failure';
  if (/Cancel/.test(type)) return 'cancel';
  if (/Signaled$|Signal/.test(type)) return 'signal';
  if (type === 'WorkflowExecutionCompleted' || type === 'ActivityTaskCompleted' || type === 'ChildWorkflowExecutionCompleted') return 'ok';
  if (type.startsWith('DecisionTask')) return 'decision';
  if (type.startsWith('Timer')) return 'timer';
  if (type.startsWith('WorkflowExecution')) return 'workflow';
  return 'plain';
}

const SUMMARY_KEYS = ['name', 'activityType', 'activityId', 'timerId', 'signalName', 'identity', 'scheduledEventId', 'startedEventId',
  'timeoutType', 'reason', 'error', 'cause', 'result', 'details', 'input', 'output', 'markerName', 'startToFireTimeout'];

/** A one-line summary of an event's key attributes. */
export function summary(attrs) {
  const out = [];
  for (const k of SUMMARY_KEYS) {
    const v = attrs[k];
    if (v === undefined || v === null || v === '') continue;
    const s = typeof v === 'object' ? (v.name ? `${v.name}${v.version ? `@${v.version}` : ''}` : JSON.stringify(v)) : String(v);
    out.push(`${k}=${s.length > 48 ? `${s.slice(0, 47)}…` : s}`);
  }
  return out.join('  ');
}

export const clock = (ms) => {
  const d = new Date(ms);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

export function offset(ms) {
  if (ms < 1000) return `+${ms} ms`;
  if (ms < 120_000) return `+${(ms / 1000).toFixed(2)} s`;
  return `+${(ms / 60_000).toFixed(1)} min`;
}

/** One row of the event list; the attributes expand in place. */
export function eventRow(e, t0) {
  const tr = document.createElement('tr');
  tr.className = `event ${classify(e.type)}`;
  tr.dataset.eventId = String(e.id);
  tr.dataset.eventType = e.type;
  const cell = (text, cls) => { const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; return td; };
  const details = document.createElement('details');
  const sum = document.createElement('summary');
  const type = document.createElement('span');
  type.className = 'etype';
  type.textContent = e.type;
  const brief = document.createElement('span');
  brief.className = 'brief';
  brief.textContent = summary(e.attrs);
  sum.append(type, ' ', brief);
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(e.attrs, null, 2);
  details.append(sum, pre);
  const main = document.createElement('td');
  main.append(details);
  tr.append(cell(String(e.id), 'num'), cell(offset(e.at - t0), 'num'), cell(clock(e.at), 'num'), main);
  return tr;
}

/** Spans of the run and its tasks, from the history alone. */
function spans(events, now, info) {
  const rows = [];
  const t0 = events[0]?.at ?? now;
  const end = info.closedAt ?? now;
  const wf = { label: 'workflow execution', segs: [{ from: t0, to: end, cls: info.closeStatus ? `done ${(info.closeStatus || '').toLowerCase()}` : 'running' }], marks: [] };
  rows.push(wf);
  const decisions = { label: 'decision tasks', segs: [], marks: [] };
  rows.push(decisions);
  const byScheduled = new Map();
  const timers = new Map();
  for (const e of events) {
    const a = e.attrs;
    switch (e.type) {
      case 'DecisionTaskScheduled': {
        const s = { from: e.at, to: end, cls: info.closeStatus ? 'waiting' : 'waiting open', started: null };
        byScheduled.set(e.id, s);
        decisions.segs.push(s);
        break;
      }
      case 'ActivityTaskScheduled': {
        const row = { label: `${a.activityType?.name ?? 'activity'} (${a.activityId})`, segs: [], marks: [] };
        const s = { from: e.at, to: end, cls: info.closeStatus ? 'waiting' : 'waiting open', row };
        row.segs.push(s);
        byScheduled.set(e.id, s);
        rows.push(row);
        break;
      }
      case 'DecisionTaskStarted':
      case 'ActivityTaskStarted': {
        const s = byScheduled.get(a.scheduledEventId);
        if (!s) break;
        s.to = e.at;
        s.cls = 'waiting';
        const run = { from: e.at, to: end, cls: info.closeStatus ? 'done' : 'running' };
        s.run = run;
        (s.row ? s.row.segs : decisions.segs).push(run);
        break;
      }
      case 'DecisionTaskCompleted': case 'DecisionTaskTimedOut':
      case 'ActivityTaskCompleted': case 'ActivityTaskFailed': case 'ActivityTaskTimedOut': case 'ActivityTaskCanceled': {
        const s = byScheduled.get(a.scheduledEventId);
        if (!s) break;
        const last = s.run ?? s;
        last.to = e.at;
        last.cls = `done ${classify(e.type)}`;
        if (!s.run) s.cls = `waiting ${classify(e.type)}`;
        break;
      }
      case 'TimerStarted': {
        const row = { label: `timer ${a.timerId}`, segs: [], marks: [] };
        const s = { from: e.at, to: end, cls: info.closeStatus ? 'done' : 'running timer' };
        row.segs.push(s);
        timers.set(a.timerId, s);
        rows.push(row);
        break;
      }
      case 'TimerFired': case 'TimerCanceled': {
        const s = timers.get(a.timerId);
        if (s) { s.to = e.at; s.cls = `done ${e.type === 'TimerFired' ? 'timer' : 'cancel'}`; }
        break;
      }
      default:
        if (/Signaled|CancelRequested|MarkerRecorded|Failed$|TimedOut$|Terminated$/.test(e.type) && !e.type.startsWith('ActivityTask') && !e.type.startsWith('DecisionTask')) {
          wf.marks.push({ at: e.at, cls: classify(e.type), title: `${e.id} ${e.type}` });
        }
    }
  }
  if (decisions.segs.length === 0) rows.splice(1, 1);
  return { rows, t0, end: Math.max(end, events[events.length - 1]?.at ?? end) };
}

function niceStep(ms) {
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 86_400_000];
  return steps.find((s) => ms / s <= 8) ?? 86_400_000;
}

/** The Gantt chart of a run: one row per task, waiting (scheduled → started) light, running solid. */
export function renderGantt(events, info, now) {
  const { rows, t0, end } = spans(events, now, info);
  return drawRows(rows, t0, end);
}

/**
 * Rows of segments (`{ from, to, cls }`, epoch ms) and marks (`{ at, cls, title }`) under a time axis:
 * the chart of renderGantt, and of any kind that computes its own rows.
 */
export function drawRows(rows, t0, end) {
  const LABEL = 210, W = 860, ROW = 20, TOP = 22;
  const span = Math.max(1, end - t0);
  const X = (t) => LABEL + ((t - t0) / span) * (W - LABEL - 10);
  const H = TOP + rows.length * ROW + 6;
  const root = svg('svg', { class: 'gantt', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': 'timeline of the run and its tasks' });
  const step = niceStep(span);
  for (let t = 0; t <= span; t += step) {
    const x = X(t0 + t);
    root.append(svg('line', { x1: x, x2: x, y1: TOP - 6, y2: H, class: 'tick' }),
      svg('text', { x, y: 11, class: 'tick-label', 'text-anchor': 'middle' }, offset(t).slice(1)));
  }
  rows.forEach((r, i) => {
    const y = TOP + i * ROW;
    root.append(svg('text', { x: 4, y: y + 13, class: 'row-label' }, r.label.length > 30 ? `${r.label.slice(0, 29)}…` : r.label));
    for (const s of r.segs) {
      const x0 = X(s.from), x1 = Math.max(X(s.to), x0 + 2);
      root.append(svg('rect', { x: x0, y: y + 3, width: x1 - x0, height: ROW - 7, rx: 2, class: `seg ${s.cls}` },
        svg('title', {}, `${r.label}: ${offset(s.from - t0)} → ${offset(s.to - t0)} (${s.to - s.from} ms)`)));
    }
    for (const m of r.marks) {
      const x = X(m.at);
      root.append(svg('path', { d: `M${x},${y + 2} l5,8 l-5,8 l-5,-8 z`, class: `mark ${m.cls}` }, svg('title', {}, m.title)));
    }
  });
  return root;
}
