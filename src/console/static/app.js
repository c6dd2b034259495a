// The ActorFlow web console: plain ES modules, no dependencies but elkjs (served by the node), everything served by the node.
// Reads and actions are AWS JSON 1.0 requests to POST / (the same operations every SDK calls);
// the execution pages follow their run over server-sent events (/console/api/…/events).
import { allPages, app, dateTime, enc, h, setCrumbs, showError, statusBadge, swf } from './ui.js';
import { executionPage } from './swf-execution.js';
import { sfnRoute } from './sfn-pages.js';

const typeName = (t) => (t ? `${t.name} ${t.version}` : '');
const executionHref = (domain, e) => `/console/execution/${enc(domain)}/${enc(e.workflowId)}/${enc(e.runId)}`;

// ---------------------------------------------------------------- pages

async function domainsPage() {
  setCrumbs({ text: 'Domains' });
  const body = h('tbody');
  app.replaceChildren(h('h1', {}, 'Domains'),
    h('p', { class: 'muted' }, 'Every domain registered with this engine. Pick one for its workflow types and executions.'),
    h('table', { class: 'grid', id: 'domains' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Domain'), h('th', {}, 'Status'), h('th', {}, 'Workflow types'), h('th', {}, 'Open executions'),
        h('th', {}, 'Closed executions'), h('th', {}, 'Retention'), h('th', {}, 'Description'))),
      body));
  try {
    const domains = [
      ...await allPages('ListDomains', { registrationStatus: 'REGISTERED' }, 'domainInfos'),
      ...await allPages('ListDomains', { registrationStatus: 'DEPRECATED' }, 'domainInfos'),
    ];
    if (domains.length === 0) body.append(h('tr', {}, h('td', { colspan: 7, class: 'empty' }, 'No domains yet: register one with RegisterDomain.')));
    for (const d of domains) {
      const cell = () => h('td', { class: 'num' }, '…');
      const [types, open, closed, retention] = [cell(), cell(), cell(), cell()];
      const href = `/console/domain/${enc(d.name)}`;
      body.append(h('tr', { dataset: { domain: d.name } },
        h('td', {}, h('a', { href }, d.name)),
        h('td', {}, h('span', { class: `badge ${d.status.toLowerCase()}` }, d.status)),
        types, open, closed, retention,
        h('td', {}, d.description ?? '')));
      const fill = (td, p, text, link) => p.then((v) => { td.replaceChildren(link ? h('a', { href: link }, text(v)) : text(v)); }, () => { td.textContent = '?'; });
      const count = (c) => `${c.count}${c.truncated ? '+' : ''}`;
      fill(types, allPages('ListWorkflowTypes', { domain: d.name, registrationStatus: 'REGISTERED' }, 'typeInfos'), (l) => String(l.length));
      fill(open, swf('CountOpenWorkflowExecutions', { domain: d.name, startTimeFilter: { oldestDate: 0 } }), count, `${href}?state=open`);
      fill(closed, swf('CountClosedWorkflowExecutions', { domain: d.name, startTimeFilter: { oldestDate: 0 } }), count, `${href}?state=closed`);
      fill(retention, swf('DescribeDomain', { name: d.name }), (r) => {
        const n = r.configuration?.workflowExecutionRetentionPeriodInDays;
        return n === undefined ? '?' : `${n} day${n === '1' ? '' : 's'}`;
      });
    }
  } catch (err) {
    showError(body, err);
  }
}

/** The list filters live in the URL, so a filtered view can be bookmarked and reloaded. */
function readFilters(params) {
  return {
    state: params.get('state') === 'closed' ? 'closed' : 'open',
    filter: params.get('filter') ?? 'none',
    typeName: params.get('typeName') ?? '',
    typeVersion: params.get('typeVersion') ?? '',
    tag: params.get('tag') ?? '',
    workflowId: params.get('workflowId') ?? '',
    closeStatus: params.get('closeStatus') ?? 'COMPLETED',
    timeBy: params.get('timeBy') === 'close' ? 'close' : 'start',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    pageSize: params.get('pageSize') ?? '25',
    oldestFirst: params.get('oldestFirst') === 'on',
  };
}

/** The AWS input of List{Open,Closed}WorkflowExecutions for the filters. */
function listInput(domain, f) {
  const time = { oldestDate: f.from ? new Date(f.from).getTime() / 1000 : 0 };
  if (f.to) time.latestDate = new Date(f.to).getTime() / 1000;
  const input = { domain, maximumPageSize: Math.max(1, Math.min(1000, Number(f.pageSize) || 25)), reverseOrder: f.oldestFirst };
  if (f.state === 'closed' && f.timeBy === 'close') input.closeTimeFilter = time;
  else input.startTimeFilter = time;
  if (f.filter === 'type' && f.typeName) input.typeFilter = { name: f.typeName, ...(f.typeVersion ? { version: f.typeVersion } : {}) };
  if (f.filter === 'tag' && f.tag) input.tagFilter = { tag: f.tag };
  if (f.filter === 'workflowId' && f.workflowId) input.executionFilter = { workflowId: f.workflowId };
  if (f.filter === 'closeStatus' && f.state === 'closed') input.closeStatusFilter = { status: f.closeStatus };
  return input;
}

async function domainPage(domain) {
  setCrumbs({ text: 'Domains', href: '/console/' }, { text: domain });
  const params = new URLSearchParams(location.search);
  const f = readFilters(params);
  const typesBody = h('tbody');
  const showDeprecated = h('input', { type: 'checkbox', id: 'show-deprecated' });
  const types = h('section', { class: 'card' },
    h('div', { class: 'card-head' }, h('h2', {}, 'Workflow types'), h('label', { class: 'inline' }, showDeprecated, ' deprecated too')),
    h('table', { class: 'grid', id: 'workflow-types' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Version'), h('th', {}, 'Status'), h('th', {}, 'Registered'), h('th', {}, 'Description'), h('th', {}, ''))),
      typesBody));
  const loadTypes = async () => {
    typesBody.replaceChildren();
    try {
      const list = [...await allPages('ListWorkflowTypes', { domain, registrationStatus: 'REGISTERED' }, 'typeInfos'),
        ...(showDeprecated.checked ? await allPages('ListWorkflowTypes', { domain, registrationStatus: 'DEPRECATED' }, 'typeInfos') : [])];
      if (list.length === 0) typesBody.append(h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No workflow types.')));
      for (const t of list) {
        const q = new URLSearchParams({ state: f.state, filter: 'type', typeName: t.workflowType.name, typeVersion: t.workflowType.version });
        typesBody.append(h('tr', {},
          h('td', {}, t.workflowType.name), h('td', {}, t.workflowType.version),
          h('td', {}, h('span', { class: `badge ${t.status.toLowerCase()}` }, t.status)),
          h('td', {}, dateTime(t.creationDate)), h('td', {}, t.description ?? ''),
          h('td', {}, h('a', { href: `?${q}` }, 'executions →'))));
      }
    } catch (err) { showError(typesBody, err); }
  };
  showDeprecated.addEventListener('change', loadTypes);

  // Filters: a GET form, so the URL holds the query.
  const field = (label, input) => h('label', {}, label, input);
  const select = (name, options, value) => h('select', { name }, ...options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)));
  const filterKinds = [['none', 'no filter'], ['type', 'workflow type'], ['tag', 'tag'], ['workflowId', 'workflowId']];
  if (f.state === 'closed') filterKinds.push(['closeStatus', 'close status']);
  // SWF takes at most one of the type, tag, workflowId and close-status filters: show the chosen one's fields.
  const kindSelect = select('filter', filterKinds, f.filter);
  const only = (kind, el) => { el.dataset.kind = kind; return el; };
  const form = h('form', { class: 'filters', method: 'get', id: 'filters' },
    h('input', { type: 'hidden', name: 'state', value: f.state }),
    field('Filter', kindSelect),
    only('type', field('Type name', h('input', { name: 'typeName', value: f.typeName, size: 14 }))),
    only('type', field('Type version', h('input', { name: 'typeVersion', value: f.typeVersion, size: 5 }))),
    only('tag', field('Tag', h('input', { name: 'tag', value: f.tag, size: 12 }))),
    only('workflowId', field('workflowId', h('input', { name: 'workflowId', value: f.workflowId, size: 16 }))),
    f.state === 'closed' ? only('closeStatus', field('Close status', select('closeStatus', ['COMPLETED', 'FAILED', 'CANCELED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'].map((s) => [s, s]), f.closeStatus))) : null,
    f.state === 'closed' ? field('Time window on', select('timeBy', [['start', 'start time'], ['close', 'close time']], f.timeBy)) : null,
    field('From', h('input', { type: 'datetime-local', name: 'from', value: f.from, step: 1 })),
    field('To', h('input', { type: 'datetime-local', name: 'to', value: f.to, step: 1 })),
    field('Page size', h('input', { type: 'number', name: 'pageSize', value: f.pageSize, min: 1, max: 1000, size: 4 })),
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', name: 'oldestFirst', checked: f.oldestFirst }), ' oldest first'),
    h('button', { type: 'submit', class: 'primary' }, 'Apply'),
    h('a', { href: `?state=${f.state}`, class: 'button secondary' }, 'Reset'));
  const showKind = () => {
    for (const e of form.querySelectorAll('[data-kind]')) {
      e.hidden = e.dataset.kind !== kindSelect.value;
      for (const i of e.querySelectorAll('input, select')) i.disabled = e.hidden; // left out of the URL
    }
  };
  kindSelect.addEventListener('change', showKind);
  showKind();

  const tab = (state, text) => {
    const q = new URLSearchParams(params);
    q.set('state', state);
    if (state === 'open' && (q.get('filter') === 'closeStatus')) q.delete('filter');
    return h('a', { href: `?${q}`, class: `tab${f.state === state ? ' active' : ''}`, 'data-tab': state }, text);
  };
  const listBody = h('tbody');
  const pager = h('div', { class: 'pager' });
  const requestView = h('pre', { class: 'request' });
  const auto = h('input', { type: 'checkbox', id: 'auto-refresh', checked: true });
  const executions = h('section', { class: 'card' },
    h('div', { class: 'card-head' }, h('h2', {}, 'Executions'), h('div', { class: 'tabs' }, tab('open', 'Open'), tab('closed', 'Closed')),
      h('label', { class: 'inline' }, auto, ' refresh every 2 s')),
    form,
    h('table', { class: 'grid', id: 'executions' },
      h('thead', {}, h('tr', {}, h('th', {}, 'workflowId'), h('th', {}, 'runId'), h('th', {}, 'Type'), h('th', {}, 'Started'), h('th', {}, f.state === 'closed' ? 'Closed' : ''),
        h('th', {}, 'Status'), h('th', {}, 'Tags'))),
      listBody),
    pager,
    h('details', {}, h('summary', {}, 'The request'), requestView));
  app.replaceChildren(h('h1', {}, domain), types, executions);
  loadTypes();

  const tokens = [undefined]; // the token of each page shown so far
  let pageIx = 0;
  const load = async () => {
    const input = { ...listInput(domain, f), nextPageToken: tokens[pageIx] };
    const action = f.state === 'closed' ? 'ListClosedWorkflowExecutions' : 'ListOpenWorkflowExecutions';
    requestView.textContent = `${action}\n${JSON.stringify(input, null, 2)}`;
    try {
      const r = await swf(action, input);
      listBody.replaceChildren();
      if (r.executionInfos.length === 0) listBody.append(h('tr', {}, h('td', { colspan: 7, class: 'empty' }, 'No executions match.')));
      for (const x of r.executionInfos) {
        listBody.append(h('tr', { dataset: { workflowId: x.execution.workflowId, runId: x.execution.runId } },
          h('td', {}, h('a', { href: executionHref(domain, x.execution) }, x.execution.workflowId)),
          h('td', { class: 'mono small' }, x.execution.runId),
          h('td', {}, typeName(x.workflowType)),
          h('td', {}, dateTime(x.startTimestamp)),
          h('td', {}, dateTime(x.closeTimestamp)),
          h('td', {}, statusBadge(x.executionStatus, x.closeStatus), x.cancelRequested ? h('span', { class: 'badge cancel' }, 'cancel requested') : null),
          h('td', {}, ...(x.tagList ?? []).map((t) => h('a', { class: 'tag', href: `?${new URLSearchParams({ state: f.state, filter: 'tag', tag: t })}` }, t)))));
      }
      tokens[pageIx + 1] = r.nextPageToken;
      pager.replaceChildren(
        h('button', { class: 'secondary', disabled: pageIx === 0, onclick: () => { pageIx = 0; load(); } }, '« first'),
        h('button', { class: 'secondary', disabled: pageIx === 0, onclick: () => { pageIx--; load(); } }, '← previous'),
        h('span', {}, `page ${pageIx + 1}`),
        h('button', { class: 'secondary', disabled: !r.nextPageToken, 'data-testid': 'next-page', onclick: () => { pageIx++; load(); } }, 'next →'));
    } catch (err) {
      showError(listBody, err);
    }
  };
  await load();
  const timer = setInterval(() => { if (auto.checked && document.visibilityState === 'visible') load(); }, 2000);
  window.addEventListener('pagehide', () => clearInterval(timer));
}

// ---------------------------------------------------------------- router

async function route() {
  const parts = location.pathname.replace(/\/+$/, '').split('/').slice(2).map((p) => decodeURIComponent(p));
  try {
    if (parts.length === 0) return await domainsPage();
    if (parts[0] === 'domain' && parts.length === 2) return await domainPage(parts[1]);
    if (parts[0] === 'execution' && parts.length === 4) return await executionPage(parts[1], parts[2], parts[3]);
    if (parts[0] === 'sfn') return await sfnRoute(parts.slice(1));
    setCrumbs({ text: 'Domains', href: '/console/' }, { text: 'not found' });
    app.replaceChildren(h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '/console/' }, 'Back to the domains')));
  } catch (err) {
    showError(app, err);
  }
}

route();
