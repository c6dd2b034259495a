import type { NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from '../../src/protocol/codec.js';
import type { EngineNode } from '../../src/server.js';
import { OPERATIONS } from '../../src/swf/operations.js';
import { SFN_OPERATIONS } from '../../src/sfn/operations.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import type { WireReply } from '../../src/protocol/wire.js';
import { uniqueDomain } from '../helpers/engine.js';
import { natsFuzzCases, runFuzzCases, type NatsFuzzCase, type Template } from '../helpers/fuzz-cases.js';
import { sampleValue, scrapeMetrics } from '../helpers/prom.js';
import { startSecuredEngine, type SecuredEngine } from '../helpers/secured-nats.js';
import { untilQueuedTasks } from '../helpers/task-stream.js';
import { until } from '../helpers/until.js';

/*
 * The NATS API as the `worker` user sees it (issue 12): bad reply subjects, wrong-typed and oversized
 * members, garbage msgpack, unknown actions. Each request is refused with an AWS fault or dropped
 * (counted), nothing is written to any stream or bucket, and the node keeps serving.
 */

/** A fixed seed keeps CI repeatable; AF_FUZZ_SEED=<n> and AF_FUZZ_RUNS=<n> explore others. */
const [SEED, RUNS, CONCURRENCY] = [Number(process.env.AF_FUZZ_SEED ?? 20_261_201), Number(process.env.AF_FUZZ_RUNS ?? 800), 16];
const WT = { name: 'wf', version: '1' };

let e: SecuredEngine;
let node: EngineNode;
let client: ActorFlowClient;
let raw: NatsConnection;
// (vitest fails the run on an unhandled rejection in the engine, which runs in this process.)
beforeAll(async () => {
  e = await startSecuredEngine();
  ({ node, client, raw } = e);
});
afterAll(async () => { await e?.stop(); });

/** Every stream's and bucket's message count and last sequence. */
async function storage(): Promise<Record<string, [number, number]>> {
  const out: Record<string, [number, number]> = {};
  for await (const name of node.nats.jsm.streams.names()) {
    const { state } = await node.nats.jsm.streams.info(name);
    out[name] = [state.messages, state.last_seq];
  }
  return out;
}

function templates(D: string, r1: { workflowId: string; runId: string }): Template[] {
  return [
    { action: 'RegisterDomain', input: { name: 'nf-new-domain', workflowExecutionRetentionPeriodInDays: '1', description: 'd' }, required: [], ids: [] },
    { action: 'RegisterWorkflowType', input: { domain: D, name: 'NewFlow', version: '1', defaultTaskList: { name: 'x' }, defaultChildPolicy: 'TERMINATE' }, required: [], ids: [] },
    { action: 'StartWorkflowExecution', input: { domain: D, workflowId: 'nf-new-run', workflowType: WT, taskList: { name: 'tl' }, input: '{}', tagList: ['t'], childPolicy: 'TERMINATE' }, required: [], ids: [] },
    { action: 'SignalWorkflowExecution', input: { domain: D, ...r1, signalName: 'sig', input: 'i' }, required: [], ids: [] },
    { action: 'TerminateWorkflowExecution', input: { domain: D, ...r1, reason: 'r', details: 'd' }, required: [], ids: [] },
    { action: 'DescribeDomain', input: { name: D }, required: [], ids: [] },
    { action: 'ListDomains', input: { registrationStatus: 'REGISTERED', maximumPageSize: 5 }, required: [], ids: [] },
    { action: 'DescribeWorkflowExecution', input: { domain: D, execution: r1 }, required: [], ids: [] },
  ];
}

/** What is wrong with the answer to a case, if anything (dropped cases are counted, not answered). */
async function send(c: NatsFuzzCase, prefix: string): Promise<string | undefined> {
  const subject = `${prefix}.api.${c.action}`;
  if (c.expect === 'dropped') {
    raw.publish(subject, c.body, { reply: c.reply });
    return undefined;
  }
  let reply: WireReply;
  try {
    reply = decode<WireReply>((await raw.request(subject, c.body, { timeout: 10_000 })).data);
  } catch (e) {
    return `no answer: ${(e as Error).message}`;
  }
  if (!('fault' in reply)) return 'answered ok';
  if (!c.expect.type.includes(reply.fault.name) || typeof reply.fault.message !== 'string') return `expected ${c.expect.type.join('|')}, got ${reply.fault.name}: ${String(reply.fault.message).slice(0, 160)}`;
  return undefined;
}

describe('NATS API fuzzing as the worker user', () => {
  it(`refuses or drops ${RUNS} bad requests, writes nothing, keeps serving`, async () => {
    const s = node.nats.subjects;
    const D = uniqueDomain('nfuzz');
    await client.call('RegisterDomain', { name: D, workflowExecutionRetentionPeriodInDays: '1' });
    await client.call('RegisterWorkflowType', { domain: D, ...WT, defaultTaskList: { name: 'tl' }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE' });
    const r1 = { workflowId: 'r1', runId: (await client.call('StartWorkflowExecution', { domain: D, workflowId: 'r1', workflowType: WT })).runId as string };
    const actions = new Set([...Object.keys(OPERATIONS), ...Object.keys(SFN_OPERATIONS)]);
    const cases = fc.sample(natsFuzzCases({ prefix: s.prefix, templates: templates(D, r1), actions }), { seed: SEED, numRuns: RUNS });
    // r1's decision task has no poller: the engine publishes it within a second; wait for that first.
    await untilQueuedTasks(node, 1);
    const before = await storage();
    const droppedBefore = sampleValue(await scrapeMetrics(node.http!.url), 'actorflow_nats_requests_dropped_total', { subject: 'api', reason: 'reply_subject' });

    const { failures, kinds, ms } = await runFuzzCases(cases, CONCURRENCY, (c) => c.kind.replace(/ at .*/, ''), (c) => send(c, s.prefix),
      (c, p) => `${c.kind} (${c.action}, ${c.body.length} bytes): ${p}`);
    await raw.flush();
    console.log(`nats fuzz: ${cases.length} requests (seed ${SEED}) in ${ms} ms; ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    expect(failures.slice(0, 15), `${failures.length} bad answers`).toEqual([]);
    const dropped = cases.filter((c) => c.expect === 'dropped').length;
    expect(dropped).toBeGreaterThan(100);
    await until(async () => sampleValue(await scrapeMetrics(node.http!.url), 'actorflow_nats_requests_dropped_total', { subject: 'api', reason: 'reply_subject' }) - droppedBefore === dropped);

    // A body over max_payload never leaves the client; the connection stays usable.
    await expect(raw.request(s.api('ListDomains'), new Uint8Array(1024 * 1024 + 1), { timeout: 5000 })).rejects.toThrow(/max_payload|payload/i);

    // Nothing was written, and the node serves.
    expect(await storage()).toEqual(before);
    expect((await client.call('DescribeWorkflowExecution', { domain: D, execution: r1 })).executionInfo.executionStatus).toBe('OPEN');
    await client.call('SignalWorkflowExecution', { domain: D, ...r1, signalName: 'after' });
    expect((await client.history(D, r1)).map((e) => e.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'WorkflowExecutionSignaled']);
  }, 120_000);
});
