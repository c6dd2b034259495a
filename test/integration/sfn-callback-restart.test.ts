import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntegrationResult, MockHook } from '../../src/sfn/integrations/integration.js';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/*
 * Crash safety of service integration Tasks and the mock hook, on engine nodes that come and go on
 * one nats-server: a task scheduled and not yet invoked is invoked by the next node; a callback
 * already submitted is not published again and still takes its token; a mocked Task never runs.
 */

const env = useNodesOnOneNats();
let nc: NatsConnection;
beforeAll(async () => { nc = await connect({ servers: env.url }); });
afterAll(async () => { await nc?.close(); });

interface Ev { id: number; type: string; [k: string]: unknown }
const call = <T>(action: string, input: object) => env.client.call<T>(action, input);
const history = async (executionArn: string) => (await call<{ events: Ev[] }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events;
const describeRun = (executionArn: string) => call<{ status: string; output?: string; error?: string }>('DescribeExecution', { executionArn });

async function start(definition: object, input: object = {}): Promise<string> {
  const { stateMachineArn } = await call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('sm'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) });
  return (await call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: JSON.stringify(input) })).executionArn;
}

const callback = (subject: string) => ({
  StartAt: 'Ask',
  States: { Ask: { Type: 'Task', Resource: 'arn:actorflow:states:::nats:publish.waitForTaskToken', Parameters: { Subject: subject, Message: { 'token.$': '$$.Task.Token' } }, End: true } },
});
const subjectOf = (label: string) => freshName(label).replace(/[^A-Za-z0-9_-]/g, '_');

/** Tokens published on `af.sfn.out.<subject>`. */
function tokensOn(subject: string): string[] {
  const got: string[] = [];
  nc.subscribe(`af.sfn.out.${subject}`, { callback: (_e, m) => { got.push(m.json<{ token: string }>().token); } });
  return got;
}

describe('service integration Tasks across an engine restart', () => {
  it('a task scheduled but not invoked when its node stopped is invoked by the next node and finishes', async () => {
    // The first node's mock never answers: TaskScheduled is stored, the integration is not called yet.
    const asked: string[] = [];
    const hang: MockHook = (m) => { asked.push(m.stateName); return new Promise<IntegrationResult | undefined>(() => undefined); };
    const first = await env.startEngine({ sfnMock: hang });
    const subject = subjectOf('restart');
    const tokens = tokensOn(subject);
    await nc.flush();
    const arn = await start(callback(subject));
    await until(async () => (await history(arn)).some((e) => e.type === 'TaskScheduled') && asked.length === 1, { timeoutMs: 10_000 });
    await first.stop();
    env.nodes.splice(env.nodes.indexOf(first), 1);
    expect(tokens).toEqual([]);
    await env.startEngine();
    await until(() => tokens.length === 1, { timeoutMs: 15_000, message: 'the next node to publish the task' });
    await call('SendTaskSuccess', { taskToken: tokens[0], output: '{"after":"restart"}' });
    await until(async () => (await describeRun(arn)).status !== 'RUNNING', { timeoutMs: 10_000 });
    expect(await describeRun(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"after":"restart"}' });
    expect((await history(arn)).map((e) => e.type)).toEqual(['ExecutionStarted', 'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded', 'TaskStateExited', 'ExecutionSucceeded']);
  });

  it('a submitted callback is not published again after a restart, and its token still finishes it', async () => {
    const first = env.nodes[0] ?? await env.startEngine();
    const subject = subjectOf('submitted');
    const tokens = tokensOn(subject);
    await nc.flush();
    const arn = await start(callback(subject));
    await until(async () => (await history(arn)).some((e) => e.type === 'TaskSubmitted'), { timeoutMs: 10_000 });
    await first.stop();
    env.nodes.splice(env.nodes.indexOf(first), 1);
    await env.startEngine();
    await call('SendTaskSuccess', { taskToken: tokens[0], output: '{"n":1}' });
    await until(async () => (await describeRun(arn)).status !== 'RUNNING', { timeoutMs: 10_000 });
    expect(await describeRun(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"n":1}' });
    expect(tokens).toHaveLength(1);
  });

  it('the mock answers Tasks before they run: an activity is never queued, attempts count per state name', async () => {
    for (const n of env.nodes.splice(0)) await n.stop();
    const seen: { stateName: string; attempt: number; resource: string }[] = [];
    const mock: MockHook = async (m) => {
      seen.push({ stateName: m.stateName, attempt: m.attempt, resource: m.resource });
      if (m.stateName === 'Flaky' && m.attempt === 0) return { ok: false, error: 'Boom', cause: 'first try' };
      if (m.stateName === 'Publish') return undefined;
      return { ok: true, output: { from: m.stateName, attempt: m.attempt } };
    };
    await env.startEngine({ sfnMock: mock });
    const { activityArn } = await call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const subject = subjectOf('mocked');
    const arn = await start({
      StartAt: 'Flaky',
      States: {
        Flaky: { Type: 'Task', Resource: activityArn, Retry: [{ ErrorEquals: ['Boom'], IntervalSeconds: 1, MaxAttempts: 1 }], Next: 'Publish' },
        Publish: { Type: 'Task', Resource: 'arn:actorflow:states:::nats:publish', Parameters: { Subject: subject, 'Message.$': '$' }, End: true },
      },
    });
    await until(async () => (await describeRun(arn)).status !== 'RUNNING', { timeoutMs: 15_000 });
    expect(await describeRun(arn)).toMatchObject({ status: 'SUCCEEDED', output: JSON.stringify({ Subject: `af.sfn.out.${subject}` }) });
    expect(seen).toEqual([
      { stateName: 'Flaky', attempt: 0, resource: activityArn },
      { stateName: 'Flaky', attempt: 1, resource: activityArn },
      { stateName: 'Publish', attempt: 0, resource: 'arn:actorflow:states:::nats:publish' },
    ]);
    expect((await history(arn)).map((e) => e.type)).toEqual([
      'ExecutionStarted', 'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityFailed',
      'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited',
      'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited', 'ExecutionSucceeded',
    ]);
    // Nothing was queued for the activity's workers.
    const task = await call<{ taskToken?: string }>('GetActivityTask', { activityArn, workerName: 'w', afPollTimeoutMs: 1000 });
    expect(task.taskToken ?? '').toBe('');
  });
});
