// The SWF execution page: the run's internal machines live, the user's workflow as swimlanes, the history.
import { formatIn, renderMachine, tickDeadlines } from './diagram.js';
import { clock, eventRow, renderGantt } from './timeline.js';
import { renderSwimlanes } from './swimlanes.js';
import { app, confirmDialog, dateTime, enc, h, setCrumbs, showError, statusBadge, swf, toast } from './ui.js';

const typeName = (t) => (t ? `${t.name} ${t.version}` : '');

export async function executionPage(domain, workflowId, runId) {
  setCrumbs({ text: 'Domains', href: '/console/' }, { text: domain, href: `/console/domain/${enc(domain)}` }, { text: workflowId });
  const graphs = await (await fetch('/console/api/machines')).json();
  const status = h('span', { id: 'run-status' });
  const source = h('span', { id: 'actor-source', class: 'muted' });
  const live = h('span', { id: 'live', class: 'live connecting' }, 'connecting…');
  const info = h('dl', { class: 'info', id: 'run-info' });
  const buttons = {
    signal: h('button', { class: 'secondary', 'data-action': 'signal', onclick: () => act('signal') }, 'Signal…'),
    cancel: h('button', { class: 'secondary', 'data-action': 'request-cancel', onclick: () => act('cancel') }, 'Request cancel…'),
    terminate: h('button', { class: 'danger', 'data-action': 'terminate', onclick: () => act('terminate') }, 'Terminate…'),
  };
  const actorsBox = h('div', { class: 'actors', id: 'actors' });
  const gantt = h('div', { class: 'gantt-box', id: 'gantt' });
  const lanes = h('div', { class: 'gantt-box', id: 'swimlanes' });
  const eventsBody = h('tbody');
  const eventCount = h('span', { class: 'muted', id: 'event-count' });
  app.replaceChildren(
    h('div', { class: 'run-head' },
      h('div', {}, h('h1', {}, workflowId, ' ', status), h('div', { class: 'mono small muted' }, `runId ${runId}`)),
      h('div', { class: 'actions' }, live, buttons.signal, buttons.cancel, buttons.terminate)),
    info,
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'The workflow'),
      h('span', { class: 'muted' }, 'activities, timers, child workflows and signals of the run')), lanes),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'State machines'), source), actorsBox),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'History'), eventCount), gantt,
      h('table', { class: 'grid events', id: 'history' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Offset'), h('th', {}, 'Time'), h('th', {}, 'Event (click for attributes)'))),
        eventsBody)));

  const events = [];
  let run;
  let skew = 0;

  async function act(kind) {
    const what = { signal: 'Signal', cancel: 'Request cancel of', terminate: 'Terminate' }[kind];
    const values = await confirmDialog({
      title: `${what} ${workflowId}?`,
      message: kind === 'terminate' ? 'The run closes at once as TERMINATED; its decider is not asked. This cannot be undone.'
        : kind === 'cancel' ? 'Records WorkflowExecutionCancelRequested; the decider decides whether to cancel.'
          : 'Records WorkflowExecutionSignaled and schedules a decision task.',
      confirm: kind === 'terminate' ? 'Terminate' : kind === 'cancel' ? 'Request cancel' : 'Send signal',
      danger: kind === 'terminate',
      fields: kind === 'signal' ? [{ name: 'signalName', label: 'Signal name', required: true }, { name: 'input', label: 'Input', multiline: true }]
        : kind === 'terminate' ? [{ name: 'reason', label: 'Reason', value: 'terminated from the console' }, { name: 'details', label: 'Details', multiline: true }] : [],
    });
    if (!values) return;
    const opt = (v) => (v ? v : undefined);
    try {
      if (kind === 'signal') await swf('SignalWorkflowExecution', { domain, workflowId, runId, signalName: values.signalName, input: opt(values.input) });
      if (kind === 'cancel') await swf('RequestCancelWorkflowExecution', { domain, workflowId, runId });
      if (kind === 'terminate') await swf('TerminateWorkflowExecution', { domain, workflowId, runId, reason: opt(values.reason), details: opt(values.details) });
      toast(`${what} ${workflowId}: done`, 'ok');
    } catch (err) {
      toast(`${err.name}: ${err.message}`, 'error');
    }
  }

  const renderInfo = () => {
    const i = run.info;
    status.replaceChildren(statusBadge(i.executionStatus, i.closeStatus), i.cancelRequested ? h('span', { class: 'badge cancel' }, 'cancel requested') : '');
    const dur = (i.closedAt ?? Date.now() + skew) - i.startedAt;
    const rows = [
      ['Type', typeName(i.workflowType)], ['Started', dateTime(i.startedAt / 1000)], ['Closed', i.closedAt ? dateTime(i.closedAt / 1000) : '—'],
      ['Duration', `${(dur / 1000).toFixed(1)} s`], ['Task list', i.taskList?.name ?? ''], ['Timeouts', `execution ${i.executionStartToCloseTimeout} s · decision ${i.taskStartToCloseTimeout} s`],
      ['Child policy', i.childPolicy ?? ''], ['Tags', (i.tagList ?? []).join(', ') || '—'], ['Input', i.input ?? '—'],
    ];
    info.replaceChildren(...rows.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, String(v)))));
    const open = i.executionStatus === 'OPEN';
    for (const b of Object.values(buttons)) b.disabled = !open;
    source.textContent = {
      live: 'live actors on this node',
      asleep: 'the run is asleep: actors replayed from its history',
      closed: 'closed: actors replayed from its history',
      remote: 'owned by another node: actors replayed from its history',
    }[run.source] ?? '';
  };

  const actorDetails = (a) => {
    const parts = Object.entries(a.details)
      .filter(([, v]) => v !== undefined && v !== null && v !== false && typeof v !== 'object')
      .map(([k, v]) => (v === true ? k : `${k} ${v}`));
    return parts.length ? h('div', { class: 'muted small mono' }, parts.join(' · ')) : null;
  };

  const renderActors = () => {
    const cards = run.actors.map((a) => {
      const graph = graphs[a.machine];
      const armedList = a.armed.length
        ? h('ul', { class: 'armed' }, ...a.armed.map((t) => h('li', { 'data-delay': t.delay },
          h('span', { class: 'delay' }, `after ${t.delay}`), ` → ${t.target} at ${clock(t.deadline)} (`, h('span', { 'data-deadline': t.deadline }, formatIn(t.deadline - Date.now() - skew)), ')')))
        : h('p', { class: 'muted small' }, a.status === 'active' ? 'no timeout armed in this state' : `final state: the actor has ${a.status === 'stopped' ? 'stopped' : 'finished'}`);
      return h('article', { class: 'actor', dataset: { actorId: a.id, machine: graph.id, state: a.state } },
        h('header', {}, h('h3', {}, a.label), h('span', { class: 'state-pill' }, a.state)),
        actorDetails(a),
        h('div', { class: 'diagram' }, renderMachine(graph, { current: a.state, armed: a.armed, now: Date.now() + skew })),
        armedList);
    });
    actorsBox.replaceChildren(...cards);
  };

  const renderHistory = (fresh) => {
    const t0 = events[0]?.at ?? 0;
    if (fresh.reset) eventsBody.replaceChildren();
    for (const e of fresh.events) eventsBody.append(eventRow(e, t0));
    eventCount.textContent = `${events.length} events`;
    gantt.replaceChildren(renderGantt(events, run.info, Date.now() + skew));
    lanes.replaceChildren(renderSwimlanes(events, run.info, Date.now() + skew));
  };

  const url = `/console/api/executions/${enc(domain)}/${enc(workflowId)}/${enc(runId)}/events`;
  const es = new EventSource(url);
  es.addEventListener('run', (m) => {
    const u = JSON.parse(m.data);
    skew = u.now - Date.now();
    if (u.reset) events.length = 0;
    events.length = Math.min(events.length, u.from);
    events.push(...u.events);
    run = u;
    renderInfo();
    renderActors();
    renderHistory(u);
    live.className = 'live on';
    live.textContent = `● live · ${clock(u.now)}`;
    document.body.dataset.lastEventId = String(events.length);
  });
  es.addEventListener('failure', (m) => {
    es.close();
    showError(actorsBox, { name: 'UnknownResourceFault', message: JSON.parse(m.data).message });
    live.className = 'live off';
    live.textContent = 'not found';
  });
  es.addEventListener('error', () => {
    if (es.readyState !== EventSource.OPEN) { live.className = 'live off'; live.textContent = 'reconnecting…'; }
  });
  const ticker = setInterval(() => {
    tickDeadlines(skew);
    if (run && run.info.executionStatus === 'OPEN') gantt.replaceChildren(renderGantt(events, run.info, Date.now() + skew));
  }, 500);
  window.addEventListener('pagehide', () => { es.close(); clearInterval(ticker); });
}
