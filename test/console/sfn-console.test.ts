import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { openConsoleBrowser, type ConsoleBrowser } from './browser.js';

/**
 * The Step Functions pages of the web console in headless Chromium: the state machine list, an
 * execution's graph (laid out by elkjs, served by the node) following a Wait and then the Task after
 * it live, Parallel and Map drawn as nested groups, a caught error and a failure coloured, and Stop
 * behind its confirmation dialog. Screenshots go to test-results/console/sfn-*.png.
 */
const ROLE = 'arn:aws:iam::000000000000:role/console';
let engine: TestEngine;
let browser: ConsoleBrowser;
let page: Page;
let base: string;
let activityArn: string;
const arns: Record<string, string> = {};
const tag = `${process.pid}`;

const call = <T = Record<string, any>>(action: string, input: object) => engine.client.call<T>(action, input);
const status = (name: string) => page.locator(`svg.sfn-graph [data-state="${name}"]`).first().getAttribute('data-status');
const describeExecution = (executionArn: string) => call<{ status: string }>('DescribeExecution', { executionArn });

async function machine(name: string, definition: object): Promise<string> {
  const { stateMachineArn } = await call<{ stateMachineArn: string }>('CreateStateMachine', { name: `${name}-${tag}`, roleArn: ROLE, definition: JSON.stringify(definition) });
  arns[name] = stateMachineArn;
  return stateMachineArn;
}
const start = async (machineName: string, input: object = {}) =>
  (await call<{ executionArn: string }>('StartExecution', { stateMachineArn: arns[machineName]!, input: JSON.stringify(input) })).executionArn;
/** Takes the activity's next task (long poll) and answers it. */
async function answer(reply: { output: object } | { error: string; cause: string }): Promise<void> {
  const t = await call<{ taskToken?: string }>('GetActivityTask', { activityArn, workerName: 'console-test' });
  expect(t.taskToken).toBeTruthy();
  if ('output' in reply) await call('SendTaskSuccess', { taskToken: t.taskToken, output: JSON.stringify(reply.output) });
  else await call('SendTaskFailure', { taskToken: t.taskToken, ...reply });
}
const openExecution = async (executionArn: string) => {
  await page.goto(`${base}/console/sfn/execution/${encodeURIComponent(executionArn)}`);
  await page.locator('#execution-graph svg.sfn-graph').waitFor({ timeout: 15_000 });
};

beforeAll(async () => {
  engine = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  base = engine.node.http!.url;
  ({ activityArn } = await call<{ activityArn: string }>('CreateActivity', { name: `ship-${tag}` }));
  await machine('waits', {
    StartAt: 'Prepare',
    States: {
      Prepare: { Type: 'Pass', Result: { parcel: 1 }, Next: 'Nap' },
      Nap: { Type: 'Wait', Seconds: 2, Next: 'Ship' },
      Ship: { Type: 'Task', Resource: activityArn, TimeoutSeconds: 60, End: true },
    },
  });
  const pass = (name: string) => ({ StartAt: name, States: { [name]: { Type: 'Pass', End: true } } });
  await machine('fan-out', {
    StartAt: 'Both',
    States: {
      Both: { Type: 'Parallel', Branches: [pass('Left'), pass('Right')], ResultPath: '$.both', Next: 'Each' },
      Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, ...pass('Item') }, End: true },
    },
  });
  await machine('fails', {
    StartAt: 'Route',
    States: {
      Route: { Type: 'Choice', Choices: [{ Variable: '$.amount', NumericGreaterThan: 100, Next: 'Charge' }], Default: 'Skip' },
      Skip: { Type: 'Succeed' },
      Charge: {
        Type: 'Task', Resource: activityArn, Next: 'Done',
        Retry: [{ ErrorEquals: ['Flaky'], MaxAttempts: 1, IntervalSeconds: 1 }],
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Refund', ResultPath: '$.error' }],
      },
      Done: { Type: 'Succeed' },
      Refund: { Type: 'Pass', Next: 'GiveUp' },
      GiveUp: { Type: 'Fail', Error: 'Order.Failed', Cause: 'charge declined, refunded' },
    },
  });
  await machine('sleeps', { StartAt: 'Long', States: { Long: { Type: 'Wait', Seconds: 600, End: true } } });
  browser = await openConsoleBrowser(base);
  page = browser.page;
}, 40_000);

afterAll(async () => {
  await browser?.close();
  await engine?.stop();
}, 30_000);

describe('Step Functions in the web console', () => {
  it('lists the state machines and activities, and draws a definition with elkjs', async () => {
    await page.goto(`${base}/console/`);
    await page.click('nav.kinds a[data-kind="sfn"]');
    await page.waitForURL('**/console/sfn/');
    for (const name of ['waits', 'fan-out', 'fails', 'sleeps']) await page.locator(`#state-machines tr[data-name="${name}-${tag}"]`).waitFor();
    await page.locator(`#activities tr[data-name="ship-${tag}"]`).waitFor();
    await browser.shot('sfn-01-state-machines');

    // A state machine's page: its graph with Choice rules, Default, Retry and Catch edges, and its executions.
    await page.click(`#state-machines a:text-is("fails-${tag}")`);
    await page.locator('#definition-graph svg.sfn-graph').waitFor({ timeout: 15_000 });
    const graph = page.locator('#definition-graph svg.sfn-graph');
    for (const name of ['Route', 'Skip', 'Charge', 'Done', 'Refund', 'GiveUp']) expect(await graph.locator(`g.sfn-state[data-state="${name}"]`).count()).toBe(1);
    expect(await graph.locator('g.sfn-state[data-state="Route"]').getAttribute('data-type')).toBe('Choice');
    const labels = await graph.locator('text.edge-label').allTextContents();
    expect(labels).toEqual(expect.arrayContaining(['$.amount > 100', 'Default', 'Retry Flaky ×1', 'Catch States.ALL']));
    for (const cls of ['choice', 'default', 'retry', 'catch', 'fail']) expect(await graph.locator(`path.edge.${cls}`).count()).toBeGreaterThan(0);
    expect(await graph.locator('g.sfn-terminal').count()).toBe(2);
    await expect(page.locator('#sfn-executions td.empty').textContent()).resolves.toContain('No executions');
    expect(browser.foreign).toEqual([]);
  }, 40_000);

  it('follows a running execution: the Wait highlighted, then the Task after it fires', async () => {
    const executionArn = await start('waits', { order: 7 });
    await openExecution(executionArn);
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Nap"][data-status="running"]').waitFor({ timeout: 10_000 });
    expect(await status('Prepare')).toBe('passed');
    expect(await status('Ship')).toBe('idle');
    expect(await page.locator('svg.sfn-graph').getAttribute('data-running')).toBe('Nap');
    await browser.shot('sfn-02-wait-running');

    // The Wait fires after 2 s: the Task after it runs (its activity task waits for a worker).
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Ship"][data-status="running"]').waitFor({ timeout: 15_000 });
    expect(await status('Nap')).toBe('passed');
    await expect(page.locator('#run-status [data-status]').textContent()).resolves.toBe('RUNNING');
    await browser.shot('sfn-03-task-after-wait');
    await answer({ output: { shipped: true } });
    await page.locator('#run-status [data-status="SUCCEEDED"]').waitFor({ timeout: 10_000 });
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Ship"][data-status="passed"]').waitFor();
    expect(await page.locator('#execution-graph svg.sfn-graph').getAttribute('data-running')).toBe('');

    // A state's input and output a click away; the history as a timeline and a table, each event expandable.
    await page.click('svg.sfn-graph g.sfn-state[data-state="Ship"]');
    await expect(page.locator('#state-detail').textContent()).resolves.toContain('"shipped": true');
    const rows = page.locator('#history tbody tr');
    const { events } = await call<{ events: unknown[] }>('GetExecutionHistory', { executionArn });
    expect(events).toHaveLength(11);
    await until(async () => (await rows.count()) === events.length, { message: 'the whole history on the page' });
    await expect(rows.first().getAttribute('data-event-type')).resolves.toBe('ExecutionStarted');
    await expect(rows.last().getAttribute('data-event-type')).resolves.toBe('ExecutionSucceeded');
    const entered = page.locator('#history tbody tr[data-event-type="WaitStateEntered"]');
    await entered.locator('summary').click();
    await expect(entered.locator('pre').textContent()).resolves.toContain('"parcel": 1');
    expect(await page.locator('#gantt svg.gantt rect.seg').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('button[data-action="stop"]').isDisabled()).toBe(true);
    await browser.shot('sfn-04-succeeded');
  }, 60_000);

  it('draws Parallel branches and Map iterations as nested groups', async () => {
    const executionArn = await start('fan-out', { items: [1, 2, 3] });
    await until(async () => (await describeExecution(executionArn)).status === 'SUCCEEDED', { message: 'the fan-out to succeed' });
    await openExecution(executionArn);
    const both = page.locator('svg.sfn-graph g.sfn-group[data-state="Both"]');
    expect(await both.getAttribute('data-type')).toBe('Parallel');
    expect(await both.locator('g.sfn-branch').count()).toBe(2);
    expect(await both.locator('g.sfn-branch g.sfn-state[data-state="Left"]').count()).toBe(1);
    expect(await both.locator('g.sfn-branch g.sfn-state[data-state="Right"]').count()).toBe(1);
    const each = page.locator('svg.sfn-graph g.sfn-group[data-state="Each"]');
    expect(await each.getAttribute('data-type')).toBe('Map');
    expect(await each.locator('g.sfn-branch g.sfn-state[data-state="Item"]').count()).toBe(1);
    await expect(each.getAttribute('data-iterations')).resolves.toBe('3');
    await expect(each.locator('> text.name').textContent()).resolves.toBe('Each · Map · 3 iterations');
    await page.locator('svg.sfn-graph g.sfn-group[data-state="Each"][data-status="passed"]').waitFor();
    for (const name of ['Both', 'Left', 'Right', 'Item']) expect(await status(name)).toBe('passed');
    // The groups hold their states inside their own box.
    const outer = (await both.locator('> rect').boundingBox())!;
    const inner = (await both.locator('g.sfn-state[data-state="Left"] rect').boundingBox())!;
    expect(inner.x).toBeGreaterThan(outer.x);
    expect(inner.y + inner.height).toBeLessThan(outer.y + outer.height);
    await browser.shot('sfn-05-parallel-map');
  }, 40_000);

  it('colours a caught error and the failure after it', async () => {
    const executionArn = await start('fails', { amount: 250 });
    await openExecution(executionArn);
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Charge"][data-status="running"]').waitFor({ timeout: 10_000 });
    await answer({ error: 'Flaky', cause: 'first try' });
    await answer({ error: 'CardDeclined', cause: 'insufficient funds' });
    await page.locator('#run-status [data-status="FAILED"]').waitFor({ timeout: 10_000 });
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Charge"][data-status="caught"]').waitFor();
    expect(await status('Route')).toBe('passed');
    expect(await status('Refund')).toBe('passed');
    expect(await status('GiveUp')).toBe('failed');
    expect(await status('Skip')).toBe('idle');
    expect(await status('Done')).toBe('idle');
    await page.click('svg.sfn-graph g.sfn-state[data-state="Charge"]');
    const detail = await page.locator('#state-detail').textContent();
    expect(detail).toContain('CardDeclined');
    expect(detail).toContain('1 retries');
    await expect(page.locator('#run-info').textContent()).resolves.toContain('Order.Failed: charge declined, refunded');
    const failed = page.locator('#history tbody tr[data-event-type="ActivityFailed"]');
    expect(await failed.count()).toBe(2);
    expect(await failed.first().getAttribute('class')).toContain('failure');
    await failed.last().locator('summary').click();
    await expect(failed.last().locator('pre').textContent()).resolves.toContain('insufficient funds');
    await browser.shot('sfn-06-caught-and-failed');
  }, 40_000);

  it('stops an execution after confirmation; dismissing the dialog changes nothing', async () => {
    const executionArn = await start('sleeps');
    await openExecution(executionArn);
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Long"][data-status="running"]').waitFor({ timeout: 10_000 });
    await page.click('button[data-action="stop"]');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.click('[data-testid="dialog-cancel"]');
    await page.locator('dialog#confirm[open]').waitFor({ state: 'detached' });
    expect((await describeExecution(executionArn)).status).toBe('RUNNING');

    await page.click('button[data-action="stop"]');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.fill('#dlg-cause', 'stopped from the console test');
    await browser.shot('sfn-07-stop-confirm', false);
    await page.click('[data-testid="dialog-confirm"]');
    await page.locator('#run-status [data-status="ABORTED"]').waitFor({ timeout: 10_000 });
    expect(await describeExecution(executionArn)).toMatchObject({ status: 'ABORTED', error: 'Console.Stopped', cause: 'stopped from the console test' });
    await page.locator('svg.sfn-graph g.sfn-state[data-state="Long"][data-status="aborted"]').waitFor();
    await page.locator('#history tbody tr[data-event-type="ExecutionAborted"]').waitFor();
    await browser.shot('sfn-08-aborted');

    // The state machine's executions, filtered by status and paged.
    await page.goto(`${base}/console/sfn/state-machine/${encodeURIComponent(arns.sleeps!)}?status=ABORTED`);
    await page.locator('#sfn-executions tbody tr[data-name]').first().waitFor();
    expect(await page.locator('#sfn-executions tbody tr[data-name]').count()).toBe(1);
    await page.goto(`${base}/console/sfn/state-machine/${encodeURIComponent(arns.sleeps!)}?status=RUNNING`);
    await page.locator('#sfn-executions td.empty').waitFor();
    for (let i = 0; i < 2; i++) await start('sleeps');
    await page.goto(`${base}/console/sfn/state-machine/${encodeURIComponent(arns.sleeps!)}?pageSize=2`);
    await page.locator('#sfn-executions tbody tr[data-name]').first().waitFor();
    expect(await page.locator('#sfn-executions tbody tr[data-name]').count()).toBe(2);
    await page.click('[data-testid="next-page"]');
    await until(async () => (await page.locator('[data-testid="previous-page"]').isDisabled()) === false, { message: 'the second page' });
    expect(await page.locator('#sfn-executions tbody tr[data-name]').count()).toBe(1);
    expect(await page.locator('[data-testid="next-page"]').isDisabled()).toBe(true);
    await browser.shot('sfn-09-executions-paged');
    expect(browser.foreign).toEqual([]);
  }, 40_000);
});
