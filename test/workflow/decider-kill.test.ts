import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { registerTypes, startWorkflowWorker } from '../../src/workflow/index.js';
import { ROOT } from '../helpers/cli-process.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { pipeline, stage } from '../fixtures/pipeline-workflow.js';
import { closedHistory } from './helpers.js';

let e: TestEngine;
const children: ChildProcess[] = [];
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await e?.stop();
});

function decider(domain: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/workflow-decider-process.ts'], { cwd: ROOT, env: { ...process.env, NATS_URL: e.url, DOMAIN: domain }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(proc);
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(proc); });
    proc.once('exit', (c) => reject(new Error(`decider exited ${c}`)));
  });
}

/** What the run did, without its decision tasks (a killed decider adds a timed-out one). */
const work = (h: WireEvent[]) => h.filter((x) => !x.eventType.startsWith('DecisionTask')).map((x) => {
  const a = attributesOf(x);
  return [x.eventType, a.activityId ?? a.timerId ?? a.result ?? ''].join(' ');
});

it('a decider SIGKILLed in the middle of 50 running workflows: restarted, every workflow completes as without the kill', async () => {
  const domain = uniqueDomain('kill');
  await e.client.ensureDomain(domain);
  await registerTypes(e.client, domain, { workflows: [pipeline], activities: [stage] });
  const activities = startWorkflowWorker(e.client, { domain, taskList: 'pipeline', activityTaskList: 'pipeline-activities', activities: [stage], activityConcurrency: 25, pollTimeoutMs: 1000 });
  try {
    const first = await decider(domain);
    const runs = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const { runId } = await e.client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: `p-${i}`, workflowType: { name: pipeline.name, version: pipeline.version }, input: JSON.stringify({ ms: 200 }) });
      return { workflowId: `p-${i}`, runId };
    }));
    // Kill it once the runs are under way: some activities done, none of the runs closed.
    const progressed = async () => (await Promise.all(runs.slice(0, 10).map((r) => e.client.history(domain, r)))).every((h) => h.some((x) => x.eventType === 'ActivityTaskCompleted'));
    for (const end = Date.now() + 20_000; !(await progressed());) {
      if (Date.now() > end) throw new Error('no progress before the kill');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const openAtKill = (await e.client.call<{ executionInfos: unknown[] }>('ListOpenWorkflowExecutions', { domain, startTimeFilter: { oldestDate: 0 }, maximumPageSize: 100 })).executionInfos.length;
    expect(openAtKill).toBeGreaterThan(0);
    await decider(domain);
    const histories = await Promise.all(runs.map((r) => closedHistory(e.client, domain, r, 90_000)));
    const expected = ['WorkflowExecutionStarted ', ...[1, 2, 3, 4, 5].flatMap((k) => [
      `ActivityTaskScheduled Stage-${k}`, `ActivityTaskStarted `, `ActivityTaskCompleted ${k}`,
      ...(k === 3 ? ['TimerStarted timer-1', 'TimerFired timer-1'] : []),
    ]), 'WorkflowExecutionCompleted 5'];
    for (const h of histories) expect(work(h)).toEqual(expected);
    const timedOut = histories.filter((h) => h.some((x) => x.eventType === 'DecisionTaskTimedOut')).length;
    console.log(`decider kill: ${openAtKill} runs open at the kill, ${timedOut} with a decision task timed out by it; all 50 completed`);
  } finally {
    await activities.stop();
  }
}, 150_000);
