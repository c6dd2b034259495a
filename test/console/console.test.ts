import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideOrder, ORDER_STEPS, ORDER_WORKFLOW, orderHandlers, registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import { ActivityWorker, type ActivityHandler } from '../../src/sdk/activity-worker.js';
import { Decider } from '../../src/sdk/decider.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { openConsoleBrowser, type ConsoleBrowser } from './browser.js';

/**
 * The web console in real headless Chromium (Debian's `chromium`, driven by playwright-core): the
 * order workflow, slowed down to a few seconds, is listed, its page shows the history and the
 * machines' diagrams moving on live over SSE, and the terminate button closes another execution.
 */
const STEP_MS = 700;

let engine: TestEngine;
let browser: ConsoleBrowser;
let page: Page;
let base: string;
let shot: ConsoleBrowser['shot'];
let stopParticipants: () => Promise<void>;
const domain = uniqueDomain('console');
let pageSawStarted!: () => void;
const seenStarted = new Promise<void>((resolve) => { pageSawStarted = resolve; });
let foreign: string[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The highlighted (current) state of the first diagram of a machine on the page. */
const current = (machine: string) => page.locator(`svg.machine[data-machine="${machine}"]`).first().getAttribute('data-current');

beforeAll(async () => {
  engine = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  base = engine.node.http!.url;
  browser = await openConsoleBrowser(base);
  page = browser.page;
  foreign = browser.foreign;
  shot = browser.shot;

  await registerOrderTypes(engine.client, domain);
  // The demo's participants, with every activity taking STEP_MS: the run lasts a few seconds. The
  // last step also waits (at most 20 s) until the page has shown an activity started, so a slow
  // machine cannot let the run finish before the page is open.
  const slow: Record<string, ActivityHandler> = Object.fromEntries(Object.entries(orderHandlers()).map(([name, step]) =>
    [name, async (task) => {
      await sleep(STEP_MS);
      if (name === ORDER_STEPS[ORDER_STEPS.length - 1]) await Promise.race([seenStarted, new Promise((r) => setTimeout(r, 20_000).unref())]);
      return step(task);
    }]));
  const decider = new Decider(engine.client, { domain, taskList: 'order-decisions', identity: 'order-decider', pollTimeoutMs: 1000 }, decideOrder).start();
  const worker = new ActivityWorker(engine.client, { domain, taskList: 'order-activities', identity: 'slow-worker', pollTimeoutMs: 1000 }, slow).start();
  stopParticipants = async () => { await Promise.all([decider.stop(), worker.stop()]); };
}, 40_000);

afterAll(async () => {
  await browser?.close();
  await stopParticipants?.();
  await engine?.stop();
}, 30_000);

describe('web console', () => {
  it('lists the order workflow and follows it live to closed.completed', async () => {
    // GET / sends a browser to the console; the domain is listed.
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.locator(`#domains tr[data-domain="${domain}"]`).waitFor();
    await shot('01-domains');

    const { runId } = await engine.client.call<{ runId: string }>('StartWorkflowExecution', {
      domain, workflowId: 'order-1', workflowType: ORDER_WORKFLOW, tagList: ['web-console'], input: JSON.stringify({ orderId: 1, amount: 42 }),
    });

    // The domain page: the workflow type and the open execution.
    await page.click(`#domains a:text-is("${domain}")`);
    await page.locator('#workflow-types td:text-is("OrderFulfillment")').waitFor();
    const row = page.locator(`#executions tr[data-workflow-id="order-1"][data-run-id="${runId}"]`);
    await row.waitFor();
    await expect(row.locator('[data-status]').textContent()).resolves.toBe('OPEN');
    await shot('02-open-executions');

    // The execution page: diagrams of the run and its open tasks, live.
    await row.locator('a').first().click();
    await page.waitForURL(`**/console/execution/${domain}/order-1/${runId}`);
    const seen = { workflow: new Set<string>(), activity: new Set<string>() };
    const watch = setInterval(() => {
      void current('workflowExecution').then((s) => s && seen.workflow.add(s), () => undefined);
      void current('activityTask').then((s) => s && seen.activity.add(s), () => undefined);
    }, 50);
    try {
      const started = page.locator('article.actor[data-machine="activityTask"] g.state[data-current="true"][data-state="started"]').first();
      await started.waitFor({ timeout: 15_000 });
      expect(await current('workflowExecution')).toBe('open');
      // The started activity's armed timeouts are shown with their deadlines.
      const armed = page.locator('article.actor[data-machine="activityTask"] ul.armed li').first();
      await expect(armed.getAttribute('data-delay')).resolves.toMatch(/startToClose|scheduleToClose/);
      await expect(page.locator('article.actor[data-machine="activityTask"] svg .edge.armed').count()).resolves.toBeGreaterThan(0);
      await shot('03-execution-running');
      pageSawStarted();

      // The workflow moves on to closed.completed without a reload.
      await page.locator('svg.machine[data-machine="workflowExecution"][data-current="closed.completed"]').waitFor({ timeout: 20_000 });
      // The sampler may not have run since the diagram changed: read the state it stopped at once more.
      seen.workflow.add((await current('workflowExecution')) ?? '');
    } finally {
      clearInterval(watch);
    }
    expect(seen.workflow).toContain('open');
    expect(seen.workflow).toContain('closed.completed');
    expect(seen.activity).toContain('started');
    await expect(page.locator('#run-status [data-status]').textContent()).resolves.toBe('COMPLETED');

    // The history: 29 events, the timeline chart, attributes expand in place.
    const rows = page.locator('#history tbody tr');
    await until(async () => (await rows.count()) === 29, { message: '29 history events on the page' });
    await expect(rows.first().getAttribute('data-event-type')).resolves.toBe('WorkflowExecutionStarted');
    await expect(rows.last().getAttribute('data-event-type')).resolves.toBe('WorkflowExecutionCompleted');
    expect(await page.locator('#gantt svg.gantt rect.seg').count()).toBeGreaterThan(8);
    const completed = rows.last();
    await completed.locator('summary').click();
    await expect(completed.locator('pre').textContent()).resolves.toContain('order fulfilled');
    // The user's workflow beside the machines: four activities in their swimlane, each completed.
    const lane = page.locator('#swimlanes g.lane[data-lane="activities"]');
    await expect(lane.getAttribute('data-count')).resolves.toBe('4');
    expect(await lane.locator('g.item[data-state="completed"]').count()).toBe(4);
    await expect(page.locator('#swimlanes g.lane[data-lane="timers"]').getAttribute('data-count')).resolves.toBe('0');
    for (const b of ['signal', 'request-cancel', 'terminate']) expect(await page.locator(`button[data-action="${b}"]`).isDisabled()).toBe(true);
    await shot('04-execution-completed');
  }, 50_000);

  it('terminates an execution from its page after confirmation', async () => {
    // Nobody polls this task list: the run stays open with a decision task scheduled.
    const { runId } = await engine.client.call<{ runId: string }>('StartWorkflowExecution', {
      domain, workflowId: 'order-2', workflowType: ORDER_WORKFLOW, taskList: { name: 'nobody-polls' }, input: '{"orderId":2}',
    });
    await page.goto(`${base}/console/execution/${domain}/order-2/${runId}`);
    await page.locator('svg.machine[data-machine="decisionTask"][data-current="scheduled"]').waitFor();
    expect(await current('workflowExecution')).toBe('open');
    await expect(page.locator('article.actor[data-machine="workflowExecution"] ul.armed li').first().getAttribute('data-delay')).resolves.toBe('startToClose');

    // A signal from outside shows in the signals swimlane.
    await engine.client.call('SignalWorkflowExecution', { domain, workflowId: 'order-2', runId, signalName: 'address-changed', input: '{}' });
    await page.locator('#swimlanes g.lane[data-lane="signals"][data-count="1"] g.item[data-label="← address-changed"]').waitFor();

    // Dismissing the dialog does nothing.
    await page.click('button[data-action="terminate"]');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.click('[data-testid="dialog-cancel"]');
    await page.locator('dialog#confirm[open]').waitFor({ state: 'detached' });
    await sleep(200);
    const before = await engine.client.call<{ executionInfo: { executionStatus: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId: 'order-2', runId } });
    expect(before.executionInfo.executionStatus).toBe('OPEN');

    // Confirming terminates it through the service layer.
    await page.click('button[data-action="terminate"]');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.fill('#dlg-reason', 'stopped from the console test');
    await shot('05-terminate-confirm', false);
    await page.click('[data-testid="dialog-confirm"]');
    await page.locator('#run-status [data-status="TERMINATED"]').waitFor({ timeout: 10_000 });
    await page.locator('svg.machine[data-machine="workflowExecution"][data-current="closed.terminated"]').waitFor();
    const after = await engine.client.call<{ executionInfo: { executionStatus: string; closeStatus?: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId: 'order-2', runId } });
    expect(after.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
    const terminated = page.locator('#history tbody tr[data-event-type="WorkflowExecutionTerminated"]');
    await terminated.waitFor();
    expect(await terminated.getAttribute('class')).toContain('failure');
    await terminated.locator('summary').click();
    await expect(terminated.locator('pre').textContent()).resolves.toContain('stopped from the console test');
    await shot('06-execution-terminated');

    // The closed list with the close-status filter shows it, and only it.
    await page.goto(`${base}/console/domain/${domain}?state=closed&filter=closeStatus&closeStatus=TERMINATED`);
    const listed = page.locator('#executions tbody tr[data-workflow-id]');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(1);
    await expect(listed.first().getAttribute('data-workflow-id')).resolves.toBe('order-2');
    await shot('07-closed-terminated');
  }, 40_000);

  it('filters and pages the closed executions (the two runs closed above)', async () => {
    const rowsOf = async () => {
      await page.locator('#executions tbody tr').first().waitFor();
      return page.locator('#executions tbody tr[data-workflow-id]').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.workflowId));
    };
    // Paging: one execution a page, newest first.
    await page.goto(`${base}/console/domain/${domain}?state=closed&pageSize=1`);
    expect(await rowsOf()).toEqual(['order-2']);
    await page.click('[data-testid="next-page"]');
    await page.locator('#executions tr[data-workflow-id="order-1"]').waitFor();
    expect(await rowsOf()).toEqual(['order-1']);
    expect(await page.locator('[data-testid="next-page"]').isDisabled()).toBe(true);

    // The filter form: only the chosen filter's fields are shown and sent.
    await page.goto(`${base}/console/domain/${domain}?state=closed`);
    expect((await rowsOf()).sort()).toEqual(['order-1', 'order-2']);
    await page.selectOption('#filters select[name="filter"]', 'workflowId');
    expect(await page.locator('#filters input[name="tag"]').isVisible()).toBe(false);
    await page.fill('#filters input[name="workflowId"]', 'order-1');
    await page.click('#filters button[type="submit"]');
    await page.waitForURL(/filter=workflowId/);
    expect(await rowsOf()).toEqual(['order-1']);
    expect(new URL(page.url()).searchParams.get('tag')).toBeNull();

    // Tag, type and time window.
    await page.goto(`${base}/console/domain/${domain}?state=closed&filter=tag&tag=web-console`);
    expect(await rowsOf()).toEqual(['order-1']);
    await page.goto(`${base}/console/domain/${domain}?state=closed&filter=type&typeName=OrderFulfillment&typeVersion=1.0`);
    expect((await rowsOf()).sort()).toEqual(['order-1', 'order-2']);
    await page.goto(`${base}/console/domain/${domain}?state=closed&from=2999-01-01T00:00`);
    expect(await rowsOf()).toEqual([]);
    await page.goto(`${base}/console/domain/${domain}?state=open`);
    expect(await rowsOf()).toEqual([]);
    expect(foreign).toEqual([]);
  }, 30_000);
});
