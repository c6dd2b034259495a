import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SfnInputEvent } from '../../src/sfn/compile/contract.js';
import type { Integration, IntegrationCall, MockHook } from '../../src/sfn/integrations/integration.js';
import { IntegrationRegistry } from '../../src/sfn/integrations/registry.js';
import { IntegrationRunner, mustRunAgain, type TaskJob } from '../../src/sfn/kind/integration-runner.js';
import type { SfnTaskState } from '../../src/sfn/kind/sfn-execution.js';
import { until } from '../helpers/until.js';

/*
 * The host's runner of service tasks without a server: what it feeds back for each pattern, the
 * AbortSignal when the task's state ends first, the mock's precedence, and what a restart runs again.
 */

const ARN = 'arn:aws:states:us-east-1:000000000000:execution:sm:x';

/** A nats-typed integration that records its calls and answers when the test says so. */
function held() {
  const calls: IntegrationCall[] = [];
  const answers: ((v: unknown) => void)[] = [];
  const integration: Integration = {
    resourceType: 'nats', actions: { publish: ['request', 'waitForTaskToken'] },
    invoke: (call) => {
      calls.push(call);
      return new Promise((resolve) => answers.push((output) => resolve({ ok: true, output })));
    },
  };
  return { integration, calls, answer: (v: unknown) => answers.shift()!(v) };
}

function runner(integration: Integration, mock?: MockHook) {
  const delivered: SfnInputEvent[][] = [];
  const enqueued: string[] = [];
  const r = new IntegrationRunner({
    integrations: new IntegrationRegistry().register(integration), log: pino({ level: 'silent' }), ...(mock ? { mock } : {}),
    token: (j) => `token-of-${j.key}`,
    deliver: async (_j, events) => { delivered.push(events); },
    enqueue: async (j) => { enqueued.push(j.key); },
  });
  return { r, delivered, enqueued };
}

const job = (task: Partial<SfnTaskState> & { resource: string }, key = 'root#1'): TaskJob => ({
  executionArn: ARN, partition: 0, key,
  task: { input: '{"Subject":"s","Message":1}', scheduledEventId: 3, status: 'scheduled', state: 'Ask', attempt: 0, ...task },
});
const callbackTask = { resource: 'arn:actorflow:states:::nats:publish.waitForTaskToken', service: { resourceType: 'nats', resource: 'publish.waitForTaskToken', action: 'publish', pattern: 'waitForTaskToken' as const } };

describe('IntegrationRunner', () => {
  it('starts the task, invokes with the token and parameters, and feeds TaskSubmitted for a callback', async () => {
    const h = held();
    const { r, delivered } = runner(h.integration);
    r.dispatch(job(callbackTask));
    // A second dispatch of the same task while its call runs changes nothing.
    r.dispatch(job(callbackTask));
    await until(() => h.calls.length === 1);
    expect(delivered).toEqual([[{ type: 'sfn.activity.started', key: 'root#1' }]]);
    expect(h.calls[0]).toMatchObject({ taskToken: 'token-of-root#1', parameters: { Subject: 's', Message: 1 }, stateName: 'Ask', taskKey: 'root#1', executionArn: ARN });
    h.answer({ Subject: 'af.sfn.out.s' });
    await until(() => delivered.length === 2);
    expect(delivered[1]).toEqual([{ type: 'sfn.task.submitted', key: 'root#1', output: { Subject: 'af.sfn.out.s' } }]);
    expect(h.calls).toHaveLength(1);
  });

  it('a token answered before TaskSubmitted is stored waits for it (at most maxMs)', async () => {
    const h = held();
    const { r, delivered } = runner(h.integration);
    r.dispatch(job(callbackTask));
    await until(() => h.calls.length === 1);
    let answered = false;
    const waiting = r.submitted(ARN, 'root#1').then(() => { answered = true; });
    await new Promise((res) => setTimeout(res, 20));
    expect(answered).toBe(false);
    h.answer({ Subject: 'af.sfn.out.s' });
    await waiting;
    expect(delivered.at(-1)).toEqual([{ type: 'sfn.task.submitted', key: 'root#1', output: { Subject: 'af.sfn.out.s' } }]);
    // Nothing on its way: no wait; a call that never answers is waited for at most maxMs.
    await r.submitted(ARN, 'root#1');
    r.dispatch(job(callbackTask, 'root#9'));
    const t0 = Date.now();
    await r.submitted(ARN, 'root#9', 50);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('aborts the call when the task ends first, and feeds nothing after', async () => {
    const h = held();
    const { r, delivered } = runner(h.integration);
    r.dispatch(job(callbackTask));
    await until(() => h.calls.length === 1);
    r.abort(ARN, 'root#1');
    expect(h.calls[0]!.signal.aborted).toBe(true);
    h.answer({});
    await new Promise((res) => setTimeout(res, 20));
    expect(delivered).toHaveLength(1);
    // The whole execution: every call of it.
    r.dispatch(job(callbackTask, 'root#2'));
    r.dispatch(job(callbackTask, 'root/b0#1'));
    await until(() => h.calls.length === 3);
    r.abortExecution(ARN);
    expect(h.calls.slice(1).map((c) => c.signal.aborted)).toEqual([true, true]);
  });

  it('the mock answers first: the integration is not invoked and an activity is not queued', async () => {
    const h = held();
    const { r, delivered, enqueued } = runner(h.integration, async (m) => (m.stateName === 'Ask' ? { ok: false, error: 'E', cause: `attempt ${m.attempt}` } : undefined));
    r.dispatch(job({ ...callbackTask, attempt: 2 }));
    r.dispatch(job({ resource: 'arn:aws:states:us-east-1:000000000000:activity:a', state: 'Other' }, 'root#2'));
    r.dispatch(job({ resource: 'arn:aws:states:us-east-1:000000000000:activity:a' }, 'root#3'));
    await until(() => delivered.length === 2 && enqueued.length === 1);
    expect(h.calls).toEqual([]);
    expect(enqueued).toEqual(['root#2']);
    expect(delivered).toContainEqual([{ type: 'sfn.activity.started', key: 'root#1' }, { type: 'sfn.activity.failed', key: 'root#1', error: 'E', cause: 'attempt 2' }]);
  });

  it('after a restart runs again: an unstarted activity, a service task without its answer, a .sync after TaskSubmitted', () => {
    const t = (status: SfnTaskState['status'], pattern?: 'request' | 'sync' | 'waitForTaskToken'): SfnTaskState => ({
      resource: 'r', input: '', scheduledEventId: 1, status, ...(pattern ? { service: { resourceType: 'states', resource: 'x', action: 'x', pattern } } : {}),
    });
    expect([t('scheduled'), t('started'), t('closed')].map(mustRunAgain)).toEqual([true, false, false]);
    expect([t('scheduled', 'request'), t('started', 'request'), t('closed', 'request')].map(mustRunAgain)).toEqual([true, true, false]);
    expect([t('submitted', 'waitForTaskToken'), t('submitted', 'sync')].map(mustRunAgain)).toEqual([false, true]);
  });
});
