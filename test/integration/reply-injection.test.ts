import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from '../../src/protocol/codec.js';
import { partitionOf } from '../../src/nats/subjects.js';
import type { EngineNode } from '../../src/server.js';
import { Registry } from '../../src/registry/registry.js';
import { runsKey } from '../../src/swf/kind/partition-owner.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { uniqueDomain } from '../helpers/engine.js';
import { sampleValue, scrapeMetrics } from '../helpers/prom.js';
import { startSecuredEngine, type SecuredEngine, type SecuredNats } from '../helpers/secured-nats.js';
import { queuedTasks, untilQueuedTasks } from '../helpers/task-stream.js';
import { until } from '../helpers/until.js';

/*
 * Issue 12, point 1: a `worker` may publish only to af.api.>, but it names the reply subject, and the
 * engine answers under its own user. Reply subjects into history, both KV buckets, a task list and the
 * JetStream API must be dropped (and counted), write nothing, and leave a node that restarts cleanly.
 */

const PARTITIONS = 4;
const WT = { name: 'wf', version: '1' };
const TL = 'deciders';

let e: SecuredEngine;
let node: EngineNode;
let client: ActorFlowClient;
let raw: NatsConnection;
let nats: SecuredNats;
const dropped = async (subject: 'api' | 'owner') =>
  sampleValue(await scrapeMetrics(e.node.http!.url), 'actorflow_nats_requests_dropped_total', { subject, reason: 'reply_subject' });

beforeAll(async () => {
  e = await startSecuredEngine({ partitions: PARTITIONS });
  ({ node, client, raw, nats } = e);
});
afterAll(async () => { await e?.stop(); });

/** A registered domain and workflow type, and one started run `victim` (its decision task queued on TL). */
async function victim(label: string) {
  const domain = uniqueDomain(label);
  await client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
  await client.call('RegisterWorkflowType', { domain, ...WT, defaultTaskList: { name: TL }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE' });
  const queuedBefore = await queuedTasks(node);
  const run = { workflowId: 'victim', runId: (await client.call('StartWorkflowExecution', { domain, workflowId: 'victim', workflowType: WT })).runId as string };
  // No poller waits: the engine publishes the decision task within a second; wait for that first.
  await untilQueuedTasks(node, queuedBefore + 1);
  return { domain, run };
}

/** What a write through a reply subject could change: stream states, the targeted keys, the run. */
async function storage(domain: string, run: { workflowId: string; runId: string }, keys: { runs: string; registry: string }) {
  const s = node.nats.subjects;
  const streams: Record<string, [number, number]> = {};
  for (const name of Object.values(s.streams)) {
    const i = await node.nats.jsm.streams.info(name);
    streams[name] = [i.state.messages, i.state.last_seq];
  }
  for (const bucket of [s.buckets.runs, s.buckets.registry, s.buckets.sfnExecutions]) {
    const i = await node.nats.jsm.streams.info(`KV_${bucket}`);
    streams[bucket] = [i.state.messages, i.state.last_seq];
  }
  return {
    streams,
    runsKey: (await node.nats.runs.get(keys.runs))?.operation ?? null,
    registryKey: (await node.nats.registry.get(keys.registry))?.operation ?? null,
    history: await client.history(domain, run),
    pending: (await client.call('CountPendingDecisionTasks', { domain, taskList: { name: TL } })).count,
    domains: (await client.call('ListDomains', { registrationStatus: 'REGISTERED', maximumPageSize: 1000 })).domainInfos.map((d: { name: string }) => d.name).sort(),
  };
}

describe('reply subjects of NATS API requests', () => {
  it('drops a worker request whose reply names history, af_runs, af_registry, a task list or the JetStream API; nothing is written', async () => {
    const s = node.nats.subjects;
    const { domain, run } = await victim('reply');
    const ghost = `${domain}-ghost`;
    const keys = { runs: runsKey(domain, 'never-used'), registry: Registry.domainKey(ghost) };
    const before = await storage(domain, run, keys);
    expect(before.pending).toBe(1);

    const targets = [
      s.history(partitionOf(domain, 'victim', PARTITIONS), domain, 'victim', run.runId),
      `$KV.${s.buckets.runs}.${keys.runs}`,
      `$KV.${s.buckets.registry}.${keys.registry}`,
      s.taskList(domain, 'd', TL),
      `$JS.API.STREAM.PURGE.${s.streams.history}`,
      `${s.prefix}.part.0.terminate`,
      // Client-like, but not a plain inbox subject: a wildcard would reach every worker's inbox.
      '_INBOX.>', '_INBOX.*.x', '_INBOX..x', '_INBOXES.x',
    ];
    const dropsBefore = await dropped('api');
    for (const reply of targets) raw.publish(s.api('ListDomains'), encode({ registrationStatus: 'REGISTERED' }), { reply });
    // A request with garbage msgpack and a bad reply is dropped too (before its body is read).
    raw.publish(s.api('StartWorkflowExecution'), new Uint8Array([0xc1, 0xff, 0x00]), { reply: `$KV.${s.buckets.runs}.${keys.runs}` });
    await raw.flush();
    await until(async () => (await dropped('api')) - dropsBefore === targets.length + 1);

    // A request with a client inbox is answered as before (the worker's own connection).
    expect((await client.call('DescribeDomain', { name: domain })).domainInfo.name).toBe(domain);
    expect(await storage(domain, run, keys)).toEqual(before);
    await expect(client.call('DescribeDomain', { name: ghost })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    // The never-used workflowId is still free.
    await client.call('StartWorkflowExecution', { domain, workflowId: 'never-used', workflowType: WT });

    // The node restarts cleanly and serves the run.
    node = await e.restart();
    expect(await client.history(domain, run)).toEqual(before.history);
    const task = await client.call('PollForDecisionTask', { domain, taskList: { name: TL }, identity: 't', afPollTimeoutMs: 5000 });
    expect(task.taskToken).toBeTruthy();
  }, 60_000);

  it('drops an owner call (af.part) whose reply is not an engine inbox', async () => {
    const s = node.nats.subjects;
    const { domain, run } = await victim('reply-owner');
    const p = partitionOf(domain, 'victim', PARTITIONS);
    const subject = s.history(p, domain, 'victim', run.runId);
    const before = (await node.nats.jsm.streams.info(s.streams.history)).state;
    const dropsBefore = await dropped('owner');
    // Only engine users may publish on af.part.>; even they get no answer into a stream.
    node.nats.nc.publish(s.partition(p, 'describe'), encode({ domain, execution: run }), { reply: subject });
    await node.nats.nc.flush();
    await until(async () => (await dropped('owner')) - dropsBefore === 1);
    const after = (await node.nats.jsm.streams.info(s.streams.history)).state;
    expect([after.messages, after.last_seq]).toEqual([before.messages, before.last_seq]);
    expect((await client.call('DescribeWorkflowExecution', { domain, execution: run })).executionInfo.executionStatus).toBe('OPEN');
  }, 30_000);

  it("refuses the engine user what nats.conf denies it: whole-stream deletes, other subjects; its own streams stay", async () => {
    const s = node.nats.subjects;
    const engine = await connect({ servers: nats.server.url, user: nats.engine.user, pass: nats.engine.password });
    try {
      const refused: string[] = [];
      void (async () => { for await (const st of engine.status()) if (st.type === 'error') refused.push(String(st.error?.message)); })();
      await expect(engine.request(`$JS.API.STREAM.DELETE.${s.streams.history}`, undefined, { timeout: 2000 })).rejects.toThrow(/permission/i);
      engine.publish('elsewhere.x', encode({}));
      engine.publish('$SYS.REQ.SERVER.PING', encode({}));
      await engine.flush();
      await until(() => refused.some((m) => m.includes('elsewhere.x')) && refused.some((m) => m.includes('$SYS.REQ.SERVER.PING')));
      expect((await node.nats.jsm.streams.info(s.streams.history)).config.name).toBe(s.streams.history);
    } finally {
      await engine.close();
    }
  });
});
