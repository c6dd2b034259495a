import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import pino from 'pino';
import { Retention, retentionMs } from '../../src/engine/retention.js';
import type { EngineClock } from '../../src/engine/clock.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e.stop(); });

async function runOne(domain: string, retentionDays: string, workflowId: string) {
  await e.client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: retentionDays });
  await registerOrderTypes(e.client, domain);
  const p = startOrderParticipants(e.client, domain, { pollTimeoutMs: 1000 });
  try {
    const { runId } = await e.client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW });
    const execution = { workflowId, runId };
    await until(async () => (await e.client.call('DescribeWorkflowExecution', { domain, execution }).catch(() => null))?.executionInfo.executionStatus === 'CLOSED'
      || (await e.client.call('DescribeWorkflowExecution', { domain, execution }).catch((err) => err))?.name === 'UnknownResourceFault');
    return execution;
  } finally {
    await p.stop();
  }
}

describe('retention of closed executions', () => {
  it('keeps a closed run readable for the domain retention period', async () => {
    const domain = uniqueDomain('keep');
    const execution = await runOne(domain, '1', 'kept');
    await new Promise((r) => setTimeout(r, 500));
    const d = await e.client.call('DescribeWorkflowExecution', { domain, execution });
    expect(d.executionInfo.closeStatus).toBe('COMPLETED');
    expect((await e.client.history(domain, execution)).length).toBe(29);
  });

  it('removes a closed run at once when the domain retains nothing (0 days)', async () => {
    const domain = uniqueDomain('drop');
    const execution = await runOne(domain, '0', 'dropped');
    await until(async () => (await e.client.call('GetWorkflowExecutionHistory', { domain, execution }).catch((err) => err))?.name === 'UnknownResourceFault');
    await expect(e.client.call('DescribeWorkflowExecution', { domain, execution })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
  });

  it('purges a history exactly when its retention runs out, also after a restart (simulated clock)', async () => {
    const domain = uniqueDomain('later');
    const execution = await runOne(domain, '1', 'later');
    const { nats } = e.node;
    const subject = nats.subjects.history(e.node.router.partitionOf(domain, execution.workflowId), domain, execution.workflowId, execution.runId);
    let now = Date.now();
    const timers: { at: number; fn: () => void }[] = [];
    const clock: EngineClock = {
      now: () => now,
      setTimeout: (fn, ms) => { const t = { at: now + ms, fn }; timers.push(t); return t; },
      clearTimeout: (t) => { const i = timers.indexOf(t as never); if (i >= 0) timers.splice(i, 1); },
    };
    const advance = async (ms: number) => {
      now += ms;
      for (const t of timers.filter((x) => x.at <= now)) { timers.splice(timers.indexOf(t), 1); t.fn(); }
      await new Promise((r) => setTimeout(r, 200));
    };
    const log = pino({ level: 'silent' });
    // A second retention keeper on partition 99 holds this run's cleanup (the node's own keeper only
    // knows the partitions it owns), and a fresh one loads it again as after a restart.
    const first = new Retention(nats.js, nats.jsm, nats.subjects, clock, log);
    await first.schedule(99, subject, now, retentionMs('1'));
    first.stop();
    const keeper = new Retention(nats.js, nats.jsm, nats.subjects, clock, log);
    expect(await keeper.load(new Set([99]))).toBe(1);
    await advance(86_400_000 - 1000);
    expect((await e.client.history(domain, execution)).length).toBe(29);
    await advance(1000);
    await until(async () => (await e.client.call('GetWorkflowExecutionHistory', { domain, execution }).catch((err) => err))?.name === 'UnknownResourceFault');
    expect(keeper.pending).toBe(0);
    expect(await new Retention(nats.js, nats.jsm, nats.subjects, clock, log).load(new Set([99]))).toBe(0);
    keeper.stop();
  });

  it('reads retention periods as SWF does', () => {
    expect(retentionMs('NONE')).toBe(0);
    expect(retentionMs('0')).toBe(0);
    expect(retentionMs('90')).toBe(90 * 86_400_000);
  });
});
