// A Step Functions execution: its state machine drawn (elk), the running state(s) highlighted live
// and the states passed, failed and caught coloured; the history as a timeline and a table with every
// event's input, output and error expandable; Stop with confirmation.
import { layoutDefinition, paintStatus, renderGraph } from './sfn-graph.js';
import { detailsOf, stateStatuses } from './sfn-status.js';
import { clock, drawRows, eventRow, offset } from './timeline.js';
import { app, confirmDialog, dateTime, enc, h, setCrumbs, sfn, showError, toast } from './ui.js';
import { machineHref, sfnBadge, sfnHome } from './sfn-links.js';

const parse = (v) => {
  if (typeof v !== 'string') return v;
  try { return JSON.parse(v); } catch { return v; }
};

/** A wire event in the shape timeline.js draws (`at` in ms, the details as attributes, JSON texts parsed). */
function asRow(e) {
  const d = detailsOf(e);
  const attrs = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, k === 'input' || k === 'output' ? parse(v) : v]));
  return { id: e.id, type: e.type, at: Math.round(e.timestamp * 1000), attrs, prev: e.previousEventId };
}

/** Rows of the timeline: the execution, then one per state entry (entered → exited), failures marked. */
function stateRows(events, closedAt, now) {
  const t0 = events[0]?.at ?? now;
  const end = closedAt ?? now;
  const run = { label: 'execution', segs: [{ from: t0, to: end, cls: closedAt ? 'done' : 'running' }], marks: [] };
  const rows = [run];
  const open = new Map();
  for (const e of events) {
    const name = e.attrs.name;
    if (e.type.endsWith('StateEntered')) {
      const row = { label: name, segs: [{ from: e.at, to: end, cls: closedAt ? 'done' : 'running' }], marks: [] };
      rows.push(row);
      open.set(name, [...(open.get(name) ?? []), row]);
    } else if (e.type.endsWith('StateExited')) {
      const row = open.get(name)?.shift();
      // Left after an error (a Catch took it): orange, not green.
      if (row) { row.segs[0].to = e.at; row.segs[0].cls = row.marks.length ? 'done timeout' : 'done ok'; }
    } else if (/Failed$|TimedOut$|Aborted$/.test(e.type)) {
      const target = e.type.startsWith('Execution') ? run : rows[rows.length - 1];
      target.marks.push({ at: e.at, cls: 'failure', title: `${e.id} ${e.type}` });
      if (target !== run) target.segs[0].cls = target.segs[0].cls.replace('running', 'failure');
    }
  }
  return { rows: rows.slice(0, 60), t0, end: Math.max(end, events[events.length - 1]?.at ?? end) };
}

export async function sfnExecutionPage(arn) {
  const name = arn.split(':').pop();
  const status = h('span', { id: 'run-status' });
  const live = h('span', { id: 'live', class: 'live connecting' }, 'connecting…');
  const stop = h('button', { class: 'danger', 'data-action': 'stop', disabled: true, onclick: () => stopExecution() }, 'Stop…');
  const info = h('dl', { class: 'info', id: 'run-info' });
  const graphBox = h('div', { class: 'sfn-graph-box', id: 'execution-graph' }, h('p', { class: 'muted' }, 'laying out…'));
  const detail = h('div', { class: 'state-detail', id: 'state-detail' }, h('p', { class: 'muted' }, 'Click a state for its input, output and error.'));
  const gantt = h('div', { class: 'gantt-box', id: 'gantt' });
  const eventsBody = h('tbody');
  const eventCount = h('span', { class: 'muted', id: 'event-count' });
  const crumbsFor = (d) => setCrumbs(sfnHome, { text: d.stateMachineArn.split(':').pop(), href: machineHref(d.stateMachineArn) }, { text: name });
  app.replaceChildren(
    h('div', { class: 'run-head' }, h('div', {}, h('h1', {}, name, ' ', status), h('div', { class: 'mono small muted' }, arn)),
      h('div', { class: 'actions' }, live, stop)),
    info,
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'State machine'),
      h('span', { class: 'legend' }, ...['running', 'passed', 'caught', 'failed'].map((s) => h('span', { class: `key ${s}` }, s)))),
    h('div', { class: 'sfn-split' }, graphBox, detail)),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'History'), eventCount), gantt,
      h('table', { class: 'grid events', id: 'history' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Offset'), h('th', {}, 'Time'), h('th', {}, 'Event (click for input, output, error)'))),
        eventsBody)));

  const events = [];
  let execution;
  let definition;
  let graph;
  let statuses = new Map();
  let picked;
  let skew = 0;

  async function stopExecution() {
    const values = await confirmDialog({
      title: `Stop ${name}?`,
      message: 'The execution ends at once as ABORTED (ExecutionAborted with this error and cause). This cannot be undone.',
      confirm: 'Stop execution', danger: true,
      fields: [{ name: 'error', label: 'Error', value: 'Console.Stopped' }, { name: 'cause', label: 'Cause', multiline: true }],
    });
    if (!values) return;
    try {
      await sfn('StopExecution', { executionArn: arn, error: values.error || undefined, cause: values.cause || undefined });
      toast(`stopped ${name}`, 'ok');
    } catch (err) { toast(`${err.name}: ${err.message}`, 'error'); }
  }

  const showState = (stateName) => {
    picked = stateName;
    const s = statuses.get(stateName);
    const block = (title, v) => (v === undefined ? null : h('div', {}, h('h4', {}, title), h('pre', {}, typeof v === 'string' ? JSON.stringify(parse(v), null, 2) : JSON.stringify(v, null, 2))));
    detail.replaceChildren(h('h3', {}, stateName, ' ', h('span', { class: `state-pill ${s?.status ?? 'idle'}`, 'data-status': s?.status ?? 'idle' }, s?.status ?? 'not entered')),
      s ? h('p', { class: 'muted small' }, `entered ${s.entered}×, exited ${s.exited}×${s.retries ? `, ${s.retries} retries` : ''}`) : null,
      block('Input', s?.input), block('Output', s?.output),
      s?.error !== undefined ? block('Error', { error: s.error, cause: parse(s.cause) }) : null);
  };

  const render = () => {
    const d = execution;
    status.replaceChildren(sfnBadge(d.status));
    stop.disabled = d.status !== 'RUNNING';
    const rows = [['Started', dateTime(d.startDate)], ['Stopped', d.stopDate ? dateTime(d.stopDate) : '—'],
      ['Duration', `${(((d.stopDate ?? (Date.now() + skew) / 1000) - d.startDate)).toFixed(1)} s`], ['Input', d.input ?? '—']];
    if (d.output !== undefined) rows.push(['Output', d.output]);
    if (d.error !== undefined) rows.push(['Error', `${d.error}${d.cause ? `: ${d.cause}` : ''}`]);
    info.replaceChildren(...rows.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, String(v)))));
    statuses = stateStatuses(events.map((e) => e.wire), definition);
    if (graph) paintStatus(graph, statuses);
    if (picked) showState(picked);
    const rowsOf = events.map((e) => e.row);
    gantt.replaceChildren(drawRows(...Object.values(stateRows(rowsOf, d.stopDate ? d.stopDate * 1000 : null, Date.now() + skew))));
    eventCount.textContent = `${events.length} events`;
    document.body.dataset.lastEventId = String(events.length);
  };

  const es = new EventSource(`/console/api/sfn/events?executionArn=${enc(arn)}`);
  es.addEventListener('run', async (m) => {
    const u = JSON.parse(m.data);
    skew = u.now - Date.now();
    if (u.reset) { events.length = 0; eventsBody.replaceChildren(); }
    execution = u.execution;
    crumbsFor(execution);
    for (const e of u.events) {
      const row = asRow(e);
      events.push({ wire: e, row });
      eventsBody.append(eventRow(row, events[0].row.at));
    }
    if (u.definition !== undefined) {
      definition = JSON.parse(u.definition);
      try {
        graph = renderGraph(await layoutDefinition(definition), showState);
        graphBox.replaceChildren(graph);
      } catch (err) { showError(graphBox, err); }
    }
    render();
    live.className = execution.status === 'RUNNING' ? 'live on' : 'live off';
    live.textContent = execution.status === 'RUNNING' ? `● live · ${clock(u.now)}` : `closed · ${offset(Math.round((execution.stopDate - execution.startDate) * 1000))}`;
  });
  es.addEventListener('failure', (m) => {
    es.close();
    showError(graphBox, { name: 'ExecutionDoesNotExist', message: JSON.parse(m.data).message });
    live.className = 'live off';
    live.textContent = 'not found';
  });
  es.addEventListener('error', () => {
    if (es.readyState !== EventSource.OPEN && execution?.status === 'RUNNING') { live.className = 'live off'; live.textContent = 'reconnecting…'; }
  });
  // A running execution's timeline and duration grow between messages.
  const ticker = setInterval(() => { if (execution?.status === 'RUNNING') render(); }, 1000);
  window.addEventListener('pagehide', () => { es.close(); clearInterval(ticker); });
}
