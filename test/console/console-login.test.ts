import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED_MESSAGE } from '../../src/console/console-login.js';
import { ORDER_WORKFLOW, registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import { parseAccessKeys } from '../../src/transport/access-keys.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { openConsoleBrowser, type ConsoleBrowser } from './browser.js';

/**
 * The web console behind access keys, in headless Chromium: a sign-in form, a wrong secret refused
 * with a clear message, a key limited to one domain sees only that domain, a full key sees all.
 */
const mine = uniqueDomain('mine');
const theirs = uniqueDomain('theirs');
const KEYS = parseAccessKeys(`AKIDFULL:full-secret,AKIDLIMITED:limited-secret:${mine}`, 'test');

let engine: TestEngine;
let opened: ConsoleBrowser;
let browser: BrowserContext;
let page: Page;
let base: string;
const shot = (name: string) => opened.shot(name);

beforeAll(async () => {
  engine = await startTestEngine({ http: { port: 0, accessKeys: KEYS } });
  base = engine.node.http!.url;
  for (const d of [mine, theirs]) await registerOrderTypes(engine.client, d);
  opened = await openConsoleBrowser(base);
  page = opened.page;
  browser = page.context();
}, 40_000);

afterAll(async () => {
  await opened?.close();
  await engine?.stop();
}, 30_000);

async function signIn(id: string, secret: string): Promise<void> {
  await page.fill('#login input[name="accessKeyId"]', id);
  await page.fill('#login input[name="secretAccessKey"]', secret);
  await page.click('#login button[type="submit"]');
}

describe('web console behind access keys', () => {
  it('asks for a key, refuses a wrong one, and shows a limited key only its domains', async () => {
    // Unsigned requests are still refused; the console asks for a key instead of answering 403.
    const unsigned = await fetch(`${base}/`, { method: 'POST', headers: { 'x-amz-target': 'SimpleWorkflowService.ListDomains' }, body: '{"registrationStatus":"REGISTERED"}' });
    expect(unsigned.status).toBe(403);
    expect((await fetch(`${base}/console/api/machines`)).status).toBe(401);
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.locator('#login').waitFor();
    await shot('login-01-form');

    await signIn('AKIDFULL', 'not-the-secret');
    await page.locator('#login-error:not([hidden])').waitFor();
    expect(await page.locator('#login-error').textContent()).toBe(REFUSED_MESSAGE);
    expect(await browser.cookies(base)).toEqual([]);
    await shot('login-02-refused');

    await signIn('AKIDLIMITED', 'limited-secret');
    await page.locator(`#domains tr[data-domain="${mine}"]`).waitFor();
    expect(await page.locator(`#domains tr[data-domain="${theirs}"]`).count()).toBe(0);
    await expect(page.locator('header .session').getAttribute('data-access-key-id')).resolves.toBe('AKIDLIMITED');
    const [cookie] = await browser.cookies(base);
    expect(cookie).toMatchObject({ name: 'af_console', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(7.9 * 3600);
    await shot('login-03-limited-key');

    // An execution of its domain opens and follows live (the SSE feed carries the cookie) …
    const { runId } = await engine.client.call<{ runId: string }>('StartWorkflowExecution', {
      domain: mine, workflowId: 'signed-in', workflowType: ORDER_WORKFLOW, taskList: { name: 'nobody-polls' }, input: '{}',
    });
    await page.goto(`${base}/console/execution/${mine}/signed-in/${runId}`);
    await page.locator('svg.machine[data-machine="decisionTask"][data-current="scheduled"]').waitFor();
    // … one of another domain is refused by the gateway's domain check.
    const other = await page.request.get(`${base}/console/api/executions/${theirs}/signed-in/${runId}`);
    expect(other.status()).toBe(403);
    expect(await other.json()).toMatchObject({ __type: 'OperationNotPermittedFault' });
    // Step Functions has no domains: a key limited to some is refused it, the live feed too.
    const sfnFeed = await page.request.get(`${base}/console/api/sfn/events?executionArn=arn:aws:states:us-east-1:000000000000:execution:sm:x`);
    expect(sfnFeed.status()).toBe(403);
    expect(await sfnFeed.json()).toMatchObject({ __type: 'AccessDeniedException' });

    // Signing out ends the session; the full key then sees every domain.
    await page.click('[data-testid="sign-out"]');
    await page.locator('#login').waitFor();
    expect(await browser.cookies(base)).toEqual([]);
    await signIn('AKIDFULL', 'full-secret');
    await page.locator(`#domains tr[data-domain="${theirs}"]`).waitFor();
    expect(await page.locator(`#domains tr[data-domain="${mine}"]`).count()).toBe(1);
    await shot('login-04-full-key');
  }, 60_000);
});
