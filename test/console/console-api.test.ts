import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_WORKFLOW, registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import type { RunUpdate } from '../../src/console/run-feeds.js';
import type { SfnUpdate } from '../../src/console/sfn-feeds.js';
import type { MachineGraphs } from '../../src/console/run-snapshot.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/**
 * The console's server side without a browser: machine graphs, the one-shot run snapshot, the SSE
 * feed (live runs, sleeping runs that watching does not wake, closed runs), GET / and the stop.
 * Runs go to sleep 300 ms after their last work here.
 */
let e: TestEngine;
let base: string;
const domain = uniqueDomain('console-api');

beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: {} }, sleepAfterMs: 300 });
  base = e.node.http!.url;
  await registerOrderTypes(e.client, domain);
});
let stopped = false;
afterAll(async () => { if (!stopped) await e?.stop(); });

/** A run nobody polls: it stays open with its first decision task scheduled. */
async function startIdle(workflowId: string): Promise<string> {
  const { runId } = await e.client.call<{ runId: string }>('StartWorkflowExecution', {
    domain, workflowId, workflowType: ORDER_WORKFLOW, taskList: { name: 'nobody-polls' },
  });
  return runId;
}

/** An SSE stream's `run` messages, parsed as they come. */
function openFeed(path: string) {
  const ctl = new AbortController();
  const updates: RunUpdate[] = [];
  const failures: string[] = [];
  const done = (async () => {
    const res = await fetch(`${base}${path}`, { signal: ctl.signal, headers: { accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      buf += value;
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'run') updates.push(JSON.parse(data!) as RunUpdate);
        if (event === 'failure') failures.push((JSON.parse(data!) as { message: string }).message);
      }
    }
  })().catch((err: unknown) => {
    // Ends: aborted here, or the server closed the stream (its stop).
    if ((err as Error).name !== 'AbortError' && (err as Error).message !== 'terminated') throw err;
  });
  return { updates, failures, close: () => { ctl.abort(); return done; } };
}

const feedPath = (workflowId: string, runId: string) => `/console/api/executions/${domain}/${workflowId}/${runId}/events`;
const state = (u: RunUpdate, machine: string) => u.actors.find((a) => a.machine === machine)?.state;

describe('console API', () => {
  it('serves the machine definitions as graphs with their delayed transitions', async () => {
    const res = await fetch(`${base}/console/api/machines`);
    expect(res.status).toBe(200);
    const g = await res.json() as MachineGraphs;
    expect(g.workflow.initial).toBe('open');
    expect(g.workflow.states.map((s) => s.path)).toContain('closed.terminated');
    expect(g.activity.transitions.filter((t) => t.kind === 'after' && t.source === 'started').map((t) => t.delay).sort())
      .toEqual(['heartbeat', 'scheduleToClose', 'startToClose']);
    expect(g.activity.transitions).toContainEqual({ source: 'started', target: 'started', kind: 'event', label: 'Heartbeat', reenter: true });
    expect(g.timer.transitions).toContainEqual({ source: 'started', target: 'fired', kind: 'after', label: 'after fire', delay: 'fire' });
  });

  it('sends browsers from / to the console and keeps the 405 for other clients', async () => {
    const html = await fetch(`${base}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    expect(html.status).toBe(302);
    expect(html.headers.get('location')).toBe('/console/');
    const api = await fetch(`${base}/`);
    expect(api.status).toBe(405);
    expect(await api.json()).toMatchObject({ __type: 'MethodNotAllowedException' });
    const page = await fetch(`${base}/console/execution/x/y/z`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('/console/static/app.js');
    expect((await fetch(`${base}/console/static/..%2fconsole.ts`)).status).toBe(404);
    // Another host name (DNS rebinding) is refused; loopback names are fine.
    const withHost = (host: string) => new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: e.node.http!.port, path: '/console/api/machines', headers: { host } }, (res) => { res.resume(); resolve(res.statusCode!); })
        .on('error', reject).end();
    });
    expect(await withHost('evil.example:80')).toBe(421);
    expect(await withHost(`localhost:${e.node.http!.port}`)).toBe(200);
    expect(await withHost('[::1]')).toBe(200);
    expect((await fetch(`${base}/console/static/app.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('answers a one-shot snapshot of a run and 404 for an unknown one', async () => {
    const runId = await startIdle('snap-1');
    const res = await fetch(`${base}/console/api/executions/${domain}/snap-1/${runId}`);
    expect(res.status).toBe(200);
    const u = await res.json() as RunUpdate;
    expect(u.events.map((x) => x.type)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled']);
    expect(u.source).toBe('live');
    expect(state(u, 'workflow')).toBe('open');
    expect(state(u, 'decision')).toBe('scheduled');
    const wf = u.actors.find((a) => a.machine === 'workflow')!;
    expect(wf.armed).toEqual([{ delay: 'startToClose', target: 'closed.timedOut', deadline: u.events[0]!.at + 3600_000 }]);
    expect((await fetch(`${base}/console/api/executions/${domain}/snap-1/no-such-run`)).status).toBe(404);
    const missing = openFeed(feedPath('snap-1', 'no-such-run'));
    await until(() => missing.failures.length === 1, { message: 'a failure event for an unknown run' });
    expect(missing.failures[0]).toMatch(/Unknown execution/);
    await missing.close();
  });

  it('serves elkjs from the package, and a Step Functions execution as SSE: definition, history, then what changes', async () => {
    const elk = await fetch(`${base}/console/static/vendor/elk.bundled.js`);
    expect(elk.status).toBe(200);
    expect(elk.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await elk.text()).toContain('ELK');
    expect((await fetch(`${base}/console/static/vendor/elk-worker.js`)).status).toBe(404);

    const definition = JSON.stringify({ StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 600, End: true } } });
    const { stateMachineArn } = await e.client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: `console-api-${process.pid}`, roleArn: 'arn:aws:iam::000000000000:role/r', definition });
    const { executionArn } = await e.client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{"a":1}' });
    const feed = openFeed(`/console/api/sfn/events?executionArn=${encodeURIComponent(executionArn)}`);
    const updates = feed.updates as unknown as SfnUpdate[];
    await until(() => updates.some((u) => u.events.some((x) => x.type === 'WaitStateEntered')), { message: 'the Wait entered' });
    expect(updates[0]).toMatchObject({ reset: true, from: 0, definition, execution: { executionArn, status: 'RUNNING', input: '{"a":1}' } });
    expect(updates.flatMap((u) => u.events).map((x) => x.type)).toEqual(['ExecutionStarted', 'WaitStateEntered']);
    const before = updates.length;
    await new Promise((r) => setTimeout(r, 900));
    expect(updates.length).toBe(before); // nothing changed: nothing sent

    await e.client.call('StopExecution', { executionArn, error: 'Api.Stop' });
    await until(() => updates.at(-1)?.execution.status === 'ABORTED', { message: 'the stop pushed' });
    const last = updates.at(-1)!;
    expect(last.reset).toBe(false);
    expect(last.definition).toBeUndefined(); // sent once, with the first message
    // The history is appended before the record says ABORTED: the event may come a message earlier.
    expect(updates.flatMap((u) => u.events).map((x) => x.type)).toEqual(['ExecutionStarted', 'WaitStateEntered', 'ExecutionAborted']);
    expect(last.from + last.events.length).toBe(3);
    await feed.close();

    const bad = openFeed('/console/api/sfn/events?executionArn=nope');
    await until(() => bad.failures.length === 1, { message: 'a failure event for a malformed ARN' });
    expect(bad.failures[0]).toMatch(/^InvalidArn: /);
    await bad.close();
    const missing = openFeed(`/console/api/sfn/events?executionArn=${encodeURIComponent(`${executionArn}-gone`)}`);
    await until(() => missing.failures.length === 1, { message: 'a failure event for an unknown execution' });
    expect(missing.failures[0]).toMatch(/^ExecutionDoesNotExist: /);
    await missing.close();
  });

  it('pushes changes of a live run, follows it to sleep without waking it, and sends its close', async () => {
    const runId = await startIdle('feed-1');
    const feed = openFeed(feedPath('feed-1', runId));
    await until(() => feed.updates.length >= 1, { message: 'the first message' });
    const first = feed.updates[0]!;
    expect(first).toMatchObject({ reset: true, from: 0 });
    expect(first.events).toHaveLength(2);

    // A signal adds one event: the next message carries only that one.
    await e.client.call('SignalWorkflowExecution', { domain, workflowId: 'feed-1', runId, signalName: 'poke', input: 'hi' });
    await until(() => feed.updates.some((u) => u.events.some((x) => x.type === 'WorkflowExecutionSignaled')), { message: 'the signal pushed' });
    const signaled = feed.updates.find((u) => u.events.some((x) => x.type === 'WorkflowExecutionSignaled'))!;
    expect(signaled).toMatchObject({ reset: false, from: 2 });
    expect(signaled.events.map((x) => x.id)).toEqual([3]);

    // Idle, the run goes to sleep; the feed says so (actors replayed from history) and keeps it asleep.
    await until(() => feed.updates.at(-1)?.source === 'asleep', { timeoutMs: 5000, message: 'the feed to report the run asleep' });
    expect(e.node.owner.liveRuns().some((k) => k.runId === runId)).toBe(false);
    const asleep = feed.updates.at(-1)!;
    expect(asleep.events).toEqual([]);
    expect(state(asleep, 'workflow')).toBe('open');
    expect(state(asleep, 'decision')).toBe('scheduled');
    expect(asleep.actors.find((a) => a.machine === 'workflow')!.armed[0]!.delay).toBe('startToClose');
    const count = feed.updates.length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(e.node.owner.liveRuns().some((k) => k.runId === runId)).toBe(false);
    expect(feed.updates.length).toBe(count); // nothing changed: nothing sent

    // Terminated (which wakes it), the close comes through.
    await e.client.call('TerminateWorkflowExecution', { domain, workflowId: 'feed-1', runId, reason: 'done' });
    await until(() => feed.updates.at(-1)?.info.closeStatus === 'TERMINATED', { message: 'the close pushed' });
    const closed = feed.updates.at(-1)!;
    expect(closed.source).toBe('closed');
    expect(state(closed, 'workflow')).toBe('closed.terminated');
    expect(closed.actors).toHaveLength(1);
    expect(closed.events.at(-1)?.type).toBe('WorkflowExecutionTerminated');

    // A graceful stop does not wait for open streams.
    const other = openFeed(feedPath('feed-1', runId));
    await until(() => other.updates.length === 1, { message: 'a second stream open' });
    const t0 = Date.now();
    stopped = true;
    await e.stop();
    expect(Date.now() - t0).toBeLessThan(3000);
    await Promise.all([feed.close(), other.close()]);
    expect(e.node.owner.liveCount).toBe(0);
  });
});
