import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { defineActivity, defineWorkflow, NONDETERMINISM_MARKER, registerTypes, replayHistory, startWorkflowWorker, type ActivityDefinition, type WorkflowDefinition } from '../../src/workflow/index.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { closedHistory, start } from './helpers.js';

const TL = 'replay-tasks';
const types = (h: WireEvent[]) => h.map((x) => x.eventType);
type Log = { warn(m: string): void; error(m: string): void };
const quiet: Log = { warn: () => undefined, error: () => undefined };

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

const step = defineActivity({ name: 'Step', version: '1', taskList: TL }, (n: number) => n * 10);

// Version 1 and a changed version 2 of the same workflow type: v2 runs its steps in another order.
const v1 = defineWorkflow({ name: 'Steps', version: '1', taskList: TL }, async (wf) => {
  const a = await wf.activity(step, 1, { activityId: 'first' });
  await wf.signal('go');
  const b = await wf.activity(step, 2, { activityId: 'second' });
  return a + b;
});
const v2 = defineWorkflow({ name: 'Steps', version: '1', taskList: TL }, async (wf) => {
  const b = await wf.activity(step, 2, { activityId: 'second' });
  await wf.signal('go');
  const a = await wf.activity(step, 1, { activityId: 'first' });
  return a + b;
});
const v1ByTimer = defineWorkflow({ name: 'Steps', version: '1', taskList: TL }, async (wf) => {
  const a = await wf.activity(step, 1, { activityId: 'first' });
  await wf.sleep('1s');
  return a;
});

async function served<T>(workflows: WorkflowDefinition[], activities: ActivityDefinition[], domain: string, body: () => Promise<T>, policy: 'block' | 'fail' = 'block', log: Log = quiet): Promise<T> {
  const worker = startWorkflowWorker(e.client, { domain, taskList: TL, workflows, activities, pollTimeoutMs: 1000, onNondeterminism: policy, log });
  try {
    return await body();
  } finally {
    await worker.stop();
  }
}

async function freshDomain(): Promise<string> {
  const domain = uniqueDomain('replay');
  await e.client.ensureDomain(domain);
  await registerTypes(e.client, domain, { workflows: [v1], activities: [step] });
  return domain;
}

async function until(cond: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the replayer', () => {
  let recorded: WireEvent[];
  beforeAll(async () => {
    const domain = await freshDomain();
    recorded = await served([v1], [step], domain, async () => {
      const run = await start(e.client, domain, 'rec', v1);
      await until(async () => types(await e.client.history(domain, run)).includes('ActivityTaskCompleted'));
      await e.client.call('SignalWorkflowExecution', { domain, workflowId: 'rec', signalName: 'go' });
      return closedHistory(e.client, domain, run);
    });
    expect(attributesOf(recorded.at(-1)!).result).toBe('30');
  });

  it('finds no divergence when the code is the code that recorded the history', async () => {
    const r = await replayHistory(v1, recorded);
    expect(r.divergence).toBeUndefined();
    expect(r.decisions).toEqual([]);
  });

  it('reports the first command a changed workflow issues differently', async () => {
    const r = await replayHistory(v2, { events: recorded });
    expect(r.divergence).toMatchObject({ commandIndex: 0, command: { kind: 'activity', id: 'second' }, event: { eventType: 'ActivityTaskScheduled', id: 'first' } });
    expect(r.divergence!.message).toMatch(/command 1 of the code is activity 'second', but the history recorded ActivityTaskScheduled 'first'/);
  });

  it('reports a command the history holds and the code no longer issues', async () => {
    const r = await replayHistory(v1ByTimer, recorded);
    expect(r.divergence).toMatchObject({ commandIndex: 1, command: { kind: 'timer' }, event: { eventType: 'ActivityTaskScheduled', id: 'second' } });
  });

  it('reads histories saved by the aws CLI (ISO timestamps)', async () => {
    const saved = JSON.parse(JSON.stringify({ events: recorded.map((x) => ({ ...x, eventTimestamp: new Date(x.eventTimestamp * 1000).toISOString() })) })) as { events: WireEvent[] };
    expect((await replayHistory(v1, saved)).divergence).toBeUndefined();
  });
});

describe('a worker meeting a changed workflow on a live run', () => {
  for (const policy of ['block', 'fail'] as const) {
    it(`answers no wrong decision (${policy}: ${policy === 'block' ? 'a marker, then the fixed code goes on' : 'the run fails'})`, async () => {
      const domain = await freshDomain();
      const run = await start(e.client, domain, `live-${policy}`, v1);
      await served([v1], [step], domain, () => until(async () => types(await e.client.history(domain, run)).includes('ActivityTaskCompleted') && types(await e.client.history(domain, run)).at(-1) === 'DecisionTaskCompleted'));
      const warnings: string[] = [];
      const before = (await e.client.history(domain, run)).length;
      await served([v2], [step], domain, async () => {
        await e.client.call('SignalWorkflowExecution', { domain, workflowId: run.workflowId, signalName: 'go' });
        await until(async () => (await e.client.history(domain, run)).some((x) => x.eventType === (policy === 'block' ? 'MarkerRecorded' : 'WorkflowExecutionFailed')));
      }, policy, { warn: (m) => { warnings.push(m); }, error: () => undefined });
      const h = await e.client.history(domain, run);
      const added = h.slice(before).map((x) => x.eventType);
      expect(added).not.toContain('ActivityTaskScheduled');
      expect(warnings.join('\n')).toMatch(/no longer matches its history: command 1 of the code is activity 'second'/);
      if (policy === 'fail') {
        expect(attributesOf(h.at(-1)!).reason).toBe(NONDETERMINISM_MARKER);
        return;
      }
      expect(attributesOf(h.find((x) => x.eventType === 'MarkerRecorded')!).markerName).toBe(NONDETERMINISM_MARKER);
      // The fixed code serves the run again from the next event on.
      await served([v1], [step], domain, async () => {
        await e.client.call('SignalWorkflowExecution', { domain, workflowId: run.workflowId, signalName: 'go' });
        const closed = await closedHistory(e.client, domain, run);
        expect(attributesOf(closed.at(-1)!).result).toBe('30');
      });
    });
  }
});

describe('determinism inside workflow code', () => {
  const guarded = defineWorkflow({ name: 'Guarded', version: '1', taskList: TL }, async (wf) => {
    const r = Math.random();
    const t = Date.now();
    await wf.activity(step, 1);
    return { r, t };
  });
  const timerInside = defineWorkflow({ name: 'TimerInside', version: '1', taskList: TL }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    return 'never';
  });

  it('Math.random and Date.now answer the same on every replay; setTimeout fails the run', async () => {
    const domain = uniqueDomain('det');
    await e.client.ensureDomain(domain);
    await registerTypes(e.client, domain, { workflows: [guarded, timerInside], activities: [step] });
    await served([guarded, timerInside], [step], domain, async () => {
      const run = await start(e.client, domain, 'g1', guarded);
      const h = await closedHistory(e.client, domain, run);
      const result = JSON.parse(attributesOf(h.at(-1)!).result as string) as { r: number; t: number };
      const firstTask = h.find((x) => x.eventType === 'DecisionTaskStarted')!;
      expect(result.t).toBe(firstTask.eventTimestamp * 1000);
      // Replayed up to the last decision task, the code decides the very result it recorded.
      const lastTask = h.map((x) => x.eventType).lastIndexOf('DecisionTaskStarted');
      const replayed = await replayHistory(guarded, h.slice(0, lastTask + 1));
      expect(replayed.divergence).toBeUndefined();
      expect(replayed.decisions).toEqual([{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: attributesOf(h.at(-1)!).result } }]);
      const bad = await start(e.client, domain, 't1', timerInside);
      const hb = await closedHistory(e.client, domain, bad);
      expect(attributesOf(hb.at(-1)!).reason).toMatch(/^DeterminismViolation: setTimeout in workflow code/);
    });
  });
});

describe('long histories', () => {
  const many = defineWorkflow({ name: 'Many', version: '1', taskList: TL }, async (wf, o: { rounds: number; perRound: number }) => {
    let total = 0;
    for (let round = 0; round < o.rounds; round++) {
      const values = await Promise.all(Array.from({ length: o.perRound }, (_, i) => wf.sideEffect(() => i)));
      total += values.reduce((s, v) => s + v, 0);
      await wf.activity(step, round);
    }
    return total;
  });

  it('a run of more than 5,000 events is replayed across history pages on every decision task', async () => {
    const domain = uniqueDomain('long');
    await e.client.ensureDomain(domain);
    await registerTypes(e.client, domain, { workflows: [many], activities: [step] });
    await served([many], [step], domain, async () => {
      const run = await start(e.client, domain, 'm1', many, JSON.stringify({ rounds: 6, perRound: 900 }));
      const h = await closedHistory(e.client, domain, run, 120_000);
      expect(h.length).toBeGreaterThan(5000);
      expect(attributesOf(h.at(-1)!).result).toBe(String(6 * (899 * 900) / 2));
      expect((await replayHistory(many, h)).divergence).toBeUndefined();
    });
  }, 150_000);
});
