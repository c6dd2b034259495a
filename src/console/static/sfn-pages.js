// The Step Functions pages: state machines and activities, one state machine (its graph, versions and
// aliases where the engine serves them, its executions by status, paged), and the execution page.
import { app, dateTime, h, setCrumbs, sfn, showError } from './ui.js';
import { layoutDefinition, renderGraph } from './sfn-graph.js';
import { sfnExecutionPage } from './sfn-execution.js';
import { executionHref, machineHref, sfnBadge, sfnHome } from './sfn-links.js';

const STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];

/** Every page of a Step Functions list (nextToken paging). */
async function everyPage(action, input, key) {
  const out = [];
  let nextToken;
  do {
    const r = await sfn(action, { ...input, nextToken });
    out.push(...(r[key] ?? []));
    nextToken = r.nextToken;
  } while (nextToken);
  return out;
}

function table(id, heads, body) {
  return h('table', { class: 'grid', id }, h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', {}, t)))), body);
}

async function homePage() {
  setCrumbs({ text: 'Step Functions' });
  const machines = h('tbody');
  const activities = h('tbody');
  app.replaceChildren(h('h1', {}, 'Step Functions'),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'State machines')),
      table('state-machines', ['Name', 'Type', 'Created', 'ARN'], machines)),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'Activities')),
      table('activities', ['Name', 'Created', 'ARN'], activities)));
  try {
    const list = await everyPage('ListStateMachines', {}, 'stateMachines');
    if (list.length === 0) machines.append(h('tr', {}, h('td', { colspan: 4, class: 'empty' }, 'No state machines yet: create one with CreateStateMachine.')));
    for (const m of list) {
      machines.append(h('tr', { dataset: { name: m.name } }, h('td', {}, h('a', { href: machineHref(m.stateMachineArn) }, m.name)),
        h('td', {}, m.type), h('td', {}, dateTime(m.creationDate)), h('td', { class: 'mono small' }, m.stateMachineArn)));
    }
  } catch (err) { showError(machines, err); }
  try {
    const list = await everyPage('ListActivities', {}, 'activities');
    if (list.length === 0) activities.append(h('tr', {}, h('td', { colspan: 3, class: 'empty' }, 'No activities.')));
    for (const a of list) {
      activities.append(h('tr', { dataset: { name: a.name } }, h('td', {}, a.name), h('td', {}, dateTime(a.creationDate)), h('td', { class: 'mono small' }, a.activityArn)));
    }
  } catch (err) { showError(activities, err); }
}

/** Versions and aliases, when the engine serves ListStateMachineVersions / ListStateMachineAliases. */
async function versionsCard(arn) {
  const out = [];
  for (const [action, key, member, title] of [
    ['ListStateMachineVersions', 'stateMachineVersions', 'stateMachineVersionArn', 'Versions'],
    ['ListStateMachineAliases', 'stateMachineAliases', 'stateMachineAliasArn', 'Aliases']]) {
    let list;
    try {
      list = await everyPage(action, { stateMachineArn: arn }, key);
    } catch {
      continue; // not served by this engine
    }
    out.push(h('section', { class: 'card', id: key }, h('div', { class: 'card-head' }, h('h2', {}, title)),
      list.length ? h('ul', {}, ...list.map((v) => h('li', { class: 'mono small' }, v[member], ' · ', dateTime(v.creationDate)))) : h('p', { class: 'muted' }, 'none')));
  }
  return out;
}

async function machinePage(arn) {
  const params = new URLSearchParams(location.search);
  const status = STATUSES.includes(params.get('status')) ? params.get('status') : '';
  const pageSize = Math.max(1, Math.min(1000, Number(params.get('pageSize')) || 25));
  const d = await sfn('DescribeStateMachine', { stateMachineArn: arn });
  setCrumbs(sfnHome, { text: d.name });
  const graphBox = h('div', { class: 'sfn-graph-box', id: 'definition-graph' }, h('p', { class: 'muted' }, 'laying out…'));
  const body = h('tbody');
  const pager = h('div', { class: 'pager' });
  const tab = (s, text) => h('a', { href: `?${new URLSearchParams({ ...(s ? { status: s } : {}), pageSize: String(pageSize) })}`, class: `tab${status === s ? ' active' : ''}`, 'data-tab': s || 'ALL' }, text);
  app.replaceChildren(h('h1', {}, d.name, ' ', h('span', { class: 'badge' }, d.type)),
    h('div', { class: 'mono small muted' }, arn),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'Definition')), graphBox,
      h('details', {}, h('summary', {}, 'Amazon States Language'), h('pre', { class: 'request' }, JSON.stringify(JSON.parse(d.definition), null, 2)))),
    ...await versionsCard(arn),
    h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', {}, 'Executions'),
      h('div', { class: 'tabs' }, tab('', 'All'), ...STATUSES.map((s) => tab(s, s)))),
    table('sfn-executions', ['Name', 'Status', 'Started', 'Stopped'], body), pager));
  layoutDefinition(JSON.parse(d.definition)).then((g) => graphBox.replaceChildren(renderGraph(g)), (err) => showError(graphBox, err));

  const tokens = [undefined];
  let ix = 0;
  const load = async () => {
    try {
      const r = await sfn('ListExecutions', { stateMachineArn: arn, maxResults: pageSize, nextToken: tokens[ix], ...(status ? { statusFilter: status } : {}) });
      body.replaceChildren();
      if (r.executions.length === 0) body.append(h('tr', {}, h('td', { colspan: 4, class: 'empty' }, 'No executions match.')));
      for (const x of r.executions) {
        body.append(h('tr', { dataset: { name: x.name } }, h('td', {}, h('a', { href: executionHref(x.executionArn) }, x.name)),
          h('td', {}, sfnBadge(x.status)), h('td', {}, dateTime(x.startDate)), h('td', {}, dateTime(x.stopDate))));
      }
      tokens[ix + 1] = r.nextToken;
      pager.replaceChildren(
        h('button', { class: 'secondary', disabled: ix === 0, 'data-testid': 'previous-page', onclick: () => { ix--; load(); } }, '← previous'),
        h('span', {}, `page ${ix + 1}`),
        h('button', { class: 'secondary', disabled: !r.nextToken, 'data-testid': 'next-page', onclick: () => { ix++; load(); } }, 'next →'));
    } catch (err) { showError(body, err); }
  };
  await load();
}

/** `/console/sfn/…` pages. */
export async function sfnRoute(parts) {
  if (parts.length === 0) return homePage();
  if (parts[0] === 'state-machine' && parts.length === 2) return machinePage(parts[1]);
  if (parts[0] === 'execution' && parts.length === 2) return sfnExecutionPage(parts[1]);
  setCrumbs(sfnHome, { text: 'not found' });
  app.replaceChildren(h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '/console/sfn/' }, 'Back to Step Functions')));
}
