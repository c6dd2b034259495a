import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { ActivityFailed, ActivityFailure, CancelledFailure, defineActivity, defineWorkflow, registerTypes, startWorkflowWorker, type ActivityDefinition, type WorkflowDefinition } from '../../src/workflow/index.js';
import type { Duration } from '../../src/workflow/index.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { closedHistory, start } from './helpers.js';

const TL = 'code-tasks';
const types = (h: WireEvent[]) => h.map((x) => x.eventType);
const wfType = (w: WorkflowDefinition) => ({ name: w.name, version: w.version });

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

/** A domain with these types registered and a worker serving them; `body` runs, then the worker stops. */
async function withWorker(workflows: WorkflowDefinition[], activities: ActivityDefinition[], body: (domain: string) => Promise<void>): Promise<void> {
  const domain = uniqueDomain('code');
  await e.client.ensureDomain(domain);
  await registerTypes(e.client, domain, { workflows, activities });
  const worker = startWorkflowWorker(e.client, { domain, taskList: TL, workflows, activities, pollTimeoutMs: 1000, log: { warn: () => undefined, error: () => undefined } });
  try {
    await body(domain);
  } finally {
    await worker.stop();
  }
}

const echo = defineActivity({ name: 'Echo', version: '1', taskList: TL }, async (input: { ms?: number; value: unknown }) => {
  if (input.ms) await new Promise((r) => setTimeout(r, input.ms));
  return input.value;
});

describe('signals', () => {
  const waitsForApproval = defineWorkflow({ name: 'Approval', version: '1', taskList: TL }, async (wf, o: { timeout: Duration }) => {
    const approval = await wf.signal<{ by: string }>('approve', { timeout: o.timeout });
    return approval ? `approved by ${approval.by}` : 'timed out';
  });

  it('a signal that comes in time is the wait\'s value, and its timer is canceled', async () => {
    await withWorker([waitsForApproval], [], async (domain) => {
      const run = await start(e.client, domain, 'a1', wfType(waitsForApproval), JSON.stringify({ timeout: '60s' }));
      await waitFor(async () => types(await e.client.history(domain, run)).includes('TimerStarted'));
      await e.client.call('SignalWorkflowExecution', { domain, workflowId: 'a1', signalName: 'approve', input: '{"by":"ann"}' });
      const h = await closedHistory(e.client, domain, run);
      expect(attributesOf(h.at(-1)!).result).toBe('approved by ann');
      expect(types(h)).toContain('TimerCanceled');
      expect(types(h)).not.toContain('TimerFired');
    });
  });

  it('without a signal the wait ends when its timeout fires', async () => {
    await withWorker([waitsForApproval], [], async (domain) => {
      const run = await start(e.client, domain, 'a2', wfType(waitsForApproval), JSON.stringify({ timeout: '1s' }));
      const h = await closedHistory(e.client, domain, run);
      expect(attributesOf(h.at(-1)!).result).toBe('timed out');
      expect(types(h)).toContain('TimerFired');
    });
  });
});

describe('concurrency', () => {
  const racing = defineWorkflow({ name: 'Race', version: '1', taskList: TL }, async (wf, o: { ms: number; deadline: Duration }) => {
    const both = wf.all([wf.activity(echo, { ms: o.ms, value: 'a' }), wf.activity(echo, { ms: o.ms, value: 'b' })]);
    const winner = await wf.race([both.then((r) => r.join('+')), wf.sleep(o.deadline).then(() => 'deadline')]);
    return winner;
  });

  it('two activities in parallel beat the timer racing them', async () => {
    await withWorker([racing], [echo], async (domain) => {
      const run = await start(e.client, domain, 'r1', wfType(racing), JSON.stringify({ ms: 10, deadline: '30s' }));
      const h = await closedHistory(e.client, domain, run);
      expect(attributesOf(h.at(-1)!).result).toBe('a+b');
      // Both scheduled by the first decision, with the timer.
      const firstBatch = h.slice(4, 7).map((x) => x.eventType);
      expect(firstBatch).toEqual(['ActivityTaskScheduled', 'ActivityTaskScheduled', 'TimerStarted']);
    });
  });

  it('the timer wins over two slow activities', async () => {
    await withWorker([racing], [echo], async (domain) => {
      const run = await start(e.client, domain, 'r2', wfType(racing), JSON.stringify({ ms: 4000, deadline: '1s' }));
      const h = await closedHistory(e.client, domain, run);
      expect(attributesOf(h.at(-1)!).result).toBe('deadline');
    });
  });
});

describe('child workflows', () => {
  const child = defineWorkflow({ name: 'Child', version: '1', taskList: TL }, async (wf) => {
    await wf.signal('finish');
    return 'finished';
  });
  // The parent waits for its child's result; the child waits for a signal.
  const parent = defineWorkflow({ name: 'Parent', version: '1', taskList: TL }, async (wf, o: { policy: 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON' }) => {
    const h = wf.startChild<string>({ name: 'Child', version: '1' }, undefined, { childPolicy: o.policy });
    await h.started;
    await wf.marker('child-started', h.workflowId);
    return `child said ${await h.result}`;
  });
  const childStatus = async (domain: string, workflowId: string) => {
    const { executionInfos } = await e.client.call<{ executionInfos: Array<{ execution: { runId: string } }> }>('ListClosedWorkflowExecutions', { domain, startTimeFilter: { oldestDate: 0 }, executionFilter: { workflowId } });
    const open = await e.client.call<{ executionInfos: unknown[] }>('ListOpenWorkflowExecutions', { domain, startTimeFilter: { oldestDate: 0 }, executionFilter: { workflowId } });
    if (open.executionInfos.length) return 'OPEN';
    if (!executionInfos.length) return 'NOT LISTED YET';
    const d = await e.client.call<{ executionInfo: { closeStatus: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId, runId: executionInfos[0]!.execution.runId } });
    return d.executionInfo.closeStatus;
  };
  const childOf = async (domain: string, run: { workflowId: string; runId: string }) => {
    let id: string | undefined;
    await waitFor(async () => {
      const marker = (await e.client.history(domain, run)).find((x) => x.eventType === 'MarkerRecorded');
      id = marker && (attributesOf(marker).details as string);
      return id !== undefined;
    });
    return id!;
  };

  it('a child\'s result is its parent\'s to await', async () => {
    await withWorker([parent, child], [], async (domain) => {
      const run = await start(e.client, domain, 'p-result', wfType(parent), JSON.stringify({ policy: 'TERMINATE' }));
      const childId = await childOf(domain, run);
      expect(childId).toBe('p-result-child-1');
      await e.client.call('SignalWorkflowExecution', { domain, workflowId: childId, signalName: 'finish' });
      const h = await closedHistory(e.client, domain, run);
      expect(attributesOf(h.at(-1)!).result).toBe('child said finished');
    });
  });

  // SWF applies the parent run's child policy (set when it starts, or on TerminateWorkflowExecution)
  // when the parent is terminated or times out, not when it completes.
  for (const [policy, expected] of [['TERMINATE', 'TERMINATED'], ['REQUEST_CANCEL', 'CANCELED'], ['ABANDON', 'OPEN']] as const) {
    it(`a child with ${policy} is ${expected} once its parent is terminated`, async () => {
      await withWorker([parent, child], [], async (domain) => {
        const run = await start(e.client, domain, `p-${policy}`, wfType(parent), JSON.stringify({ policy }), { childPolicy: policy });
        const childId = await childOf(domain, run);
        await e.client.call('TerminateWorkflowExecution', { domain, workflowId: run.workflowId, reason: 'test' });
        let last = '';
        await waitFor(async () => (last = await childStatus(domain, childId)) === expected).catch((err: Error) => { throw new Error(`${err.message}: ${childId} is ${last}`); });
      });
    });
  }
});

describe('cancellation, continue-as-new, retries, side effects', () => {
  const cleanup = defineActivity({ name: 'Cleanup', version: '1', taskList: TL }, () => 'cleaned');
  const cancellable = defineWorkflow({ name: 'Cancellable', version: '1', taskList: TL }, async (wf) => {
    try {
      await wf.sleep('1h');
      return 'slept';
    } catch (err) {
      if (!(err instanceof CancelledFailure)) throw err;
      await wf.activity(cleanup, undefined);
      throw err;
    }
  });

  it('a cancel request ends the wait; clean-up activities run; the run closes canceled', async () => {
    await withWorker([cancellable], [cleanup], async (domain) => {
      const run = await start(e.client, domain, 'c1', wfType(cancellable));
      await waitFor(async () => types(await e.client.history(domain, run)).includes('TimerStarted'));
      await e.client.call('RequestCancelWorkflowExecution', { domain, workflowId: 'c1' });
      const h = await closedHistory(e.client, domain, run);
      expect(types(h)).toEqual(expect.arrayContaining(['WorkflowExecutionCancelRequested', 'TimerCanceled', 'ActivityTaskCompleted']));
      expect(h.at(-1)!.eventType).toBe('WorkflowExecutionCanceled');
    });
  });

  const counter = defineWorkflow({ name: 'Counter', version: '1', taskList: TL }, async (wf, n: number) => {
    if (n < 3) wf.continueAsNew(n + 1);
    return `reached ${n}`;
  });

  it('continue-as-new starts the next run with the new input', async () => {
    await withWorker([counter], [], async (domain) => {
      const first = await start(e.client, domain, 'n1', wfType(counter), '0');
      const h = await closedHistory(e.client, domain, first);
      expect(h.at(-1)!.eventType).toBe('WorkflowExecutionContinuedAsNew');
      expect(attributesOf(h.at(-1)!).input).toBe('1');
      await waitFor(async () => {
        const { executionInfos } = await e.client.call<{ executionInfos: Array<{ execution: { runId: string }; closeStatus: string }> }>('ListClosedWorkflowExecutions', { domain, startTimeFilter: { oldestDate: 0 }, executionFilter: { workflowId: 'n1' } });
        return executionInfos.length === 4 && executionInfos.some((x) => x.closeStatus === 'COMPLETED');
      });
    });
  });

  let attempts = 0;
  const flaky = defineActivity({ name: 'Flaky', version: '1', taskList: TL }, () => {
    attempts += 1;
    if (attempts < 3) throw new ActivityFailed('Unavailable', `attempt ${attempts}`);
    return `ok after ${attempts}`;
  });
  const retrying = defineWorkflow({ name: 'Retrying', version: '1', taskList: TL }, async (wf) =>
    wf.activity(flaky, undefined, { retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, nonRetryable: ['Invalid'] } }));

  it('an activity is retried with backoff until it succeeds', async () => {
    await withWorker([retrying], [flaky], async (domain) => {
      const run = await start(e.client, domain, 'f1', wfType(retrying));
      const h = await closedHistory(e.client, domain, run);
      expect(attributesOf(h.at(-1)!).result).toBe('ok after 3');
      expect(h.filter((x) => x.eventType === 'ActivityTaskScheduled').map((x) => attributesOf(x).activityId)).toEqual(['Flaky-1', 'Flaky-1.2', 'Flaky-1.3']);
      expect(h.filter((x) => x.eventType === 'TimerStarted').map((x) => attributesOf(x).startToFireTimeout)).toEqual(['1', '2']);
    });
  });

  it('a reason listed as non-retryable ends the retries at once', async () => {
    const invalid = defineActivity({ name: 'Invalid', version: '1', taskList: TL }, () => { throw new ActivityFailed('Invalid', 'bad order'); });
    const once = defineWorkflow({ name: 'Once', version: '1', taskList: TL }, async (wf) => wf.activity(invalid, undefined, { retry: { maximumAttempts: 5, nonRetryable: ['Invalid'] } }));
    await withWorker([once], [invalid], async (domain) => {
      const run = await start(e.client, domain, 'i1', wfType(once));
      const h = await closedHistory(e.client, domain, run);
      expect(h.at(-1)!.eventType).toBe('WorkflowExecutionFailed');
      expect(attributesOf(h.at(-1)!).reason).toMatch(/^ActivityFailure: activity Invalid-1 failed: Invalid/);
      expect(h.filter((x) => x.eventType === 'ActivityTaskScheduled')).toHaveLength(1);
    });
  });

  const stalls = defineActivity({ name: 'Stalls', version: '1', taskList: TL }, async (_: unknown, ctx) => {
    await ctx.heartbeat({ progress: 50 });
    await new Promise((r) => setTimeout(r, 3000));
    return 'late';
  });
  const readsHeartbeat = defineWorkflow({ name: 'ReadsHeartbeat', version: '1', taskList: TL }, async (wf) => {
    try {
      return await wf.activity(stalls, undefined, { heartbeatTimeout: '1s' });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      return { kind: err.kind, reason: err.reason, details: err.details };
    }
  });

  it('an activity that times out hands the workflow its last heartbeat\'s details', async () => {
    await withWorker([readsHeartbeat], [stalls], async (domain) => {
      const run = await start(e.client, domain, 'h1', wfType(readsHeartbeat));
      const h = await closedHistory(e.client, domain, run);
      expect(JSON.parse(attributesOf(h.at(-1)!).result as string)).toEqual({ kind: 'timedOut', reason: 'HEARTBEAT', details: '{"progress":50}' });
    });
  });

  let effects = 0;
  const withSideEffect = defineWorkflow({ name: 'SideEffect', version: '1', taskList: TL }, async (wf) => {
    const ticket = await wf.sideEffect(() => { effects += 1; return `ticket-${Math.floor(Math.random() * 1e9)}`; });
    await wf.activity(echo, { value: 1 });
    await wf.activity(echo, { value: 2 });
    return ticket;
  });

  it('a side effect runs once and is replayed from its marker after', async () => {
    await withWorker([withSideEffect], [echo], async (domain) => {
      const run = await start(e.client, domain, 's1', wfType(withSideEffect));
      const h = await closedHistory(e.client, domain, run);
      const marker = h.find((x) => x.eventType === 'MarkerRecorded')!;
      expect(attributesOf(h.at(-1)!).result).toBe(attributesOf(marker).details);
      expect(effects).toBe(1);
      expect(h.filter((x) => x.eventType === 'DecisionTaskCompleted').length).toBeGreaterThanOrEqual(3);
    });
  });
});

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
