import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from '../../src/protocol/codec.js';
import { partitionOf } from '../../src/nats/subjects.js';
import { Registry } from '../../src/registry/registry.js';
import { runsKey } from '../../src/swf/kind/partition-owner.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { uniqueDomain } from '../helpers/engine.js';
import { sampleValue, scrapeMetrics } from '../helpers/prom.js';
import { startSecuredEngine, type SecuredEngine } from '../helpers/secured-nats.js';

/*
 * Issue 12, point 2: stored messages that do not decode or fit their shape (written here with the
 * engine user, as a bug or an old injection would have) must not stop the node. It starts, serves
 * the other runs, answers InternalFailure naming the damage for the run it hit, counts it in
 * /metrics, and `actorflow quarantine` lists and drops it.
 */

const PARTITIONS = 4;
const WT = { name: 'wf', version: '1' };
const TL = 'deciders';

let e: SecuredEngine;
let client: ActorFlowClient;
let engine: NatsConnection;
const quarantined = async (kind: string) => sampleValue(await scrapeMetrics(e.node.http!.url), 'actorflow_quarantined_records_total', { kind });
const cli = (...args: string[]) => runCliProcess([...args, '--nats', e.nats.server.url], { env: { NATS_USER: 'engine', NATS_PASSWORD: e.nats.engine.password! } });

beforeAll(async () => {
  e = await startSecuredEngine({ partitions: PARTITIONS });
  client = e.client;
  engine = await connect({ servers: e.nats.server.url, user: e.nats.engine.user, pass: e.nats.engine.password });
});
afterAll(async () => {
  await engine?.close();
  await e?.stop();
});

describe('quarantine of damaged stored messages', () => {
  it('starts, serves other runs, answers the damaged run with InternalFailure, counts, lists and drops the damage', async () => {
    const s = e.node.nats.subjects;
    const js = jetstream(engine);
    const domain = uniqueDomain('q');
    await client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    await client.call('RegisterWorkflowType', { domain, ...WT, defaultTaskList: { name: TL }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE' });
    const start = async (workflowId: string) => ({ workflowId, runId: (await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: WT })).runId as string });
    const [healthy, unfit, outOfOrder, garbage] = [await start('healthy'), await start('unfit'), await start('out-of-order'), await start('garbage')];
    const historyOf = (r: { workflowId: string; runId: string }) => s.history(partitionOf(domain, r.workflowId, PARTITIONS), domain, r.workflowId, r.runId);
    const before = { unfit: await client.history(domain, unfit), outOfOrder: await client.history(domain, outOfOrder) };
    // The damage, written while the node is down: a reply envelope in one history (what the reply
    // injection wrote), a well-formed transition that repeats event 1 in another, bytes that are not
    // msgpack in a third; a bad af_runs record, a bad registry record, a bad task message.
    const ghostDomain = `${domain}-ghost`;
    const jsm = await jetstreamManager(engine);
    const first = (await jsm.streams.getMessage(s.streams.history, { last_by_subj: historyOf(outOfOrder) }))!;
    const kvm = new Kvm(engine);
    const [runs, registry] = [await kvm.open(s.buckets.runs), await kvm.open(s.buckets.registry)];
    const written: { damage: { stream: string; seq: number }[]; runsSeq: number; registrySeq: number; taskSeq: number } = { damage: [], runsSeq: 0, registrySeq: 0, taskSeq: 0 };
    await e.restart(async () => {
      for (const [run, data] of [[unfit, encode({ ok: { domainInfos: [] } })], [outOfOrder, first.data], [garbage, new Uint8Array([0xc1, 0x00, 0xff])]] as const) {
        const ack = await js.publish(historyOf(run), data);
        written.damage.push({ stream: ack.stream, seq: ack.seq });
      }
      written.runsSeq = await runs.put(runsKey(domain, 'ghost'), encode({ ok: {} }));
      written.registrySeq = await registry.put(Registry.domainKey(ghostDomain), encode({ ok: { name: ghostDomain } }));
      written.taskSeq = (await js.publish(s.taskLane(domain, 'd', TL, 0), encode({ ok: { partition: 'x' } }))).seq;
    });
    const { damage, runsSeq, registrySeq } = written;

    // The damaged runs answer a clear fault naming the message and the command.
    for (const [run, i] of [[unfit, 0], [outOfOrder, 1], [garbage, 2]] as const) {
      await expect(client.call('DescribeWorkflowExecution', { domain, execution: run })).rejects.toMatchObject({
        name: 'InternalFailure', message: expect.stringContaining(`${damage[i]!.stream} sequence ${damage[i]!.seq} (${historyOf(run)}) is damaged`),
      });
    }
    await expect(client.call('DescribeWorkflowExecution', { domain, execution: unfit })).rejects.toMatchObject({ message: expect.stringContaining('actorflow quarantine drop') });
    await expect(client.call('DescribeDomain', { name: ghostDomain })).rejects.toMatchObject({ name: 'InternalFailure', message: expect.stringContaining(`sequence ${registrySeq}`) });
    const listed = (await client.call('ListDomains', { registrationStatus: 'REGISTERED', maximumPageSize: 1000 })).domainInfos.map((d: { name: string }) => d.name);
    expect(listed).toContain(domain);
    expect(listed).not.toContain(ghostDomain);

    // The healthy run is served: its decision task (queued again at recovery) past the bad task message.
    const task = await client.call('PollForDecisionTask', { domain, taskList: { name: TL }, identity: 'q', afPollTimeoutMs: 5000 });
    expect(task.workflowExecution).toBeDefined();
    const served = new Set<string>([task.workflowExecution.workflowId]);
    for (let i = 0; i < 3 && !served.has('healthy'); i++) {
      const t = await client.call('PollForDecisionTask', { domain, taskList: { name: TL }, identity: 'q', afPollTimeoutMs: 2000 });
      if (t.taskToken) served.add(t.workflowExecution.workflowId);
    }
    expect(served).toEqual(new Set(['healthy']));
    // The node held the healthy run's task (queued again at recovery), so it went first; the next
    // poll reads the queue past the damaged runs' tasks and the bad message, and gets nothing.
    const rest = await client.call('PollForDecisionTask', { domain, taskList: { name: TL }, identity: 'q', afPollTimeoutMs: 2000 });
    expect(rest.taskToken).toBeUndefined();
    expect((await client.call('DescribeWorkflowExecution', { domain, execution: healthy })).executionInfo.executionStatus).toBe('OPEN');

    expect(await quarantined('history')).toBe(3);
    expect(await quarantined('runs')).toBe(1);
    expect(await quarantined('registry')).toBe(1);
    expect(await quarantined('task')).toBe(1);

    // The operator command lists exactly that damage…
    const list = await cli('quarantine', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    const found = (JSON.parse(list.stdout) as { quarantined: { stream: string; seq: number; kind: string }[] }).quarantined;
    expect(found.map((q) => `${q.kind} ${q.stream} ${q.seq}`).sort()).toEqual([
      ...damage.map((d) => `history ${d.stream} ${d.seq}`),
      `registry KV_${s.buckets.registry} ${registrySeq}`,
      `runs KV_${s.buckets.runs} ${runsSeq}`,
      `task ${s.streams.tasks} ${written.taskSeq}`,
    ].sort());
    const text = await cli('quarantine', 'list', '--stream', s.streams.history);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/STREAM\s+SEQ\s+KIND\s+SUBJECT\s+PROBLEM/);
    expect(text.stdout).toContain('3 damaged messages');
    expect(text.stdout).toContain("its first event id is 1, the run's next is 3");

    // …refuses to drop a healthy message, and drops the damaged ones.
    const refused = await cli('quarantine', 'drop', s.streams.history, String(first.seq));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is not damaged; refusing to drop it/);
    for (const q of found) {
      const r = await cli('quarantine', 'drop', q.stream, String(q.seq));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^dropped /);
    }
    expect(JSON.parse((await cli('quarantine', 'list', '--json')).stdout)).toEqual({ quarantined: [] });

    // The runs are whole again; the workflowId and the domain name are free.
    expect(await client.history(domain, unfit)).toEqual(before.unfit);
    expect(await client.history(domain, outOfOrder)).toEqual(before.outOfOrder);
    await expect(client.call('DescribeWorkflowExecution', { domain, execution: garbage })).resolves.toMatchObject({ executionInfo: { executionStatus: 'OPEN' } });
    // A healed run takes new transitions (its fence continues), and the node restarts cleanly.
    await client.call('TerminateWorkflowExecution', { domain, ...unfit, reason: 'healed' });
    await e.restart();
    expect((await client.call('DescribeWorkflowExecution', { domain, execution: unfit })).executionInfo.closeStatus).toBe('TERMINATED');
    await start('ghost');
    await expect(client.call('DescribeDomain', { name: ghostDomain })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
  }, 120_000);
});
