/**
 * A user's vitest test of a workflow with a 30-day timer, on the time-skipping test environment.
 * In an installed project: `import { createTestEnvironment } from 'actorflow/testing'`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../src/testing/index.js';
import { attributesOf } from '../../src/sdk/client.js';
import { registerTrial, startTrialWorkers, TRIAL } from './trial-workflow.js';

let env: TestEnvironment;
let workers: { stop(): Promise<void> };
const domain = 'trials';

beforeAll(async () => {
  env = await createTestEnvironment();
  await registerTrial(env.client, domain);
  workers = startTrialWorkers(env.client, domain);
});
afterAll(async () => {
  await workers?.stop();
  await env?.close();
});

async function result(workflowId: string, runId: string): Promise<string | undefined> {
  const events = await env.client.history(domain, { workflowId, runId });
  const closed = events.find((e) => e.eventType === 'WorkflowExecutionCompleted');
  return closed ? String(attributesOf(closed).result) : undefined;
}

async function waitFor<T>(f: () => Promise<T | undefined>): Promise<T> {
  for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
    const v = await f();
    if (v !== undefined) return v;
  }
  throw new Error('timed out');
}

it('charges the card after the 30-day trial, in well under a second of waiting', async () => {
  const t0 = env.now();
  const { runId } = await env.client.call('StartWorkflowExecution', { domain, workflowId: 'alice', workflowType: TRIAL, input: 'alice' });
  expect(await waitFor(() => result('alice', runId))).toBe('receipt for alice');
  expect(env.now() - t0).toBeGreaterThanOrEqual(30 * 86_400_000);
});

it('with skipping off, the card is charged only when the test moves time past day 30', async () => {
  env.skipTime(false);
  try {
    const { runId } = await env.client.call('StartWorkflowExecution', { domain, workflowId: 'bob', workflowType: TRIAL, input: 'bob' });
    await waitFor(async () => ((await env.client.history(domain, { workflowId: 'bob', runId })).some((e) => e.eventType === 'TimerStarted') ? true : undefined));
    await env.sleep('29d');
    expect(await result('bob', runId)).toBeUndefined();
    await env.sleep('1d');
    expect(await waitFor(() => result('bob', runId))).toBe('receipt for bob');
  } finally {
    env.skipTime(true);
  }
});
