import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerOrderTypes, ORDER_WORKFLOW, startOrderParticipants } from '../../src/demo/order-fulfilment.js';
import { encode } from '../../src/protocol/codec.js';
import { startNode, type EngineNode, type StartOptions } from '../../src/server.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { uniqueDomain, useNodesOnOneNats } from '../helpers/engine.js';
import { expectOrderHistory } from '../helpers/order-history.js';
import { until } from '../helpers/until.js';
import { swfClient } from '../helpers/swf-http.js';
import { DescribeWorkflowExecutionCommand } from '@aws-sdk/client-swf';

/**
 * Two clustered nodes on one nats-server: leases split the partitions, a graceful stop hands
 * every partition to the other node at once (with its open runs rebuilt), a node that finds its
 * lease held by another node steps down, and requests keep working through all of it.
 */
const P = 8;
const logger = pino({ level: process.env.AF_TEST_LOG ?? 'silent' });
const env = useNodesOnOneNats();
const { nodes } = env;
let client: ActorFlowClient;

const start = (name: string, extra: Partial<StartOptions> = {}) =>
  env.startEngine({ cluster: true, partitions: P, nodeName: name, leaseTtlMs: 2000, leaseRenewMs: 400, sleepAfterMs: 600_000, logger, ...extra });
const owned = (n: EngineNode) => [...n.router.owned].sort((a, b) => a - b);
const openRuns = (n: EngineNode) => n.owner.liveCount + n.owner.sleepingCount;

beforeAll(() => { client = env.client; });

describe('partition leases on two nodes', () => {
  it('splits partitions, hands them over on a graceful stop, and keeps every run going', async () => {
    const a = await start('node-a');
    expect(owned(a)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const domain = uniqueDomain('lease');
    await registerOrderTypes(client, domain);
    const ids = Array.from({ length: 24 }, (_, i) => `open-${i}`);
    const runs: { workflowId: string; runId: string }[] = [];
    for (const workflowId of ids) {
      const { runId } = await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, executionStartToCloseTimeout: '600', taskStartToCloseTimeout: '60' });
      runs.push({ workflowId, runId });
    }
    expect(openRuns(a)).toBe(24);

    // B joins: A hands over its surplus, B takes it and rebuilds those partitions' runs.
    const jsm = a.nats.jsm;
    const historyBefore = (await jsm.streams.info(a.nats.subjects.streams.history)).state.last_seq;
    const b = await start('node-b', { http: { port: 0 } });
    await until(() => owned(a).length === 4 && owned(b).length === 4, { timeoutMs: 8000, message: 'a 4/4 split' });
    expect([...owned(a), ...owned(b)].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(openRuns(a) + openRuns(b)).toBe(24);
    expect(openRuns(b)).toBeGreaterThan(0);
    // Handing over and rebuilding wrote nothing to history.
    expect((await jsm.streams.info(a.nats.subjects.streams.history)).state.last_seq).toBe(historyBefore);

    // HTTP on B reaches runs whose partitions A owns (the AWS SDK, through B's gateway).
    const swf = swfClient(b.http!.port);
    const onA = runs.filter((r) => a.router.owns(a.router.partitionOf(domain, r.workflowId)));
    expect(onA.length).toBeGreaterThan(0);
    for (const execution of onA.slice(0, 3)) {
      const d = await swf.send(new DescribeWorkflowExecutionCommand({ domain, execution }));
      expect(d.executionInfo?.executionStatus).toBe('OPEN');
    }
    swf.destroy();

    // Every run answers wherever the request enters (the API queue group spans both nodes).
    for (const execution of runs) {
      const d = await client.call('DescribeWorkflowExecution', { domain, execution });
      expect(d.executionInfo.executionStatus).toBe('OPEN');
    }

    // Graceful stop of A: B holds every partition moments later, with every open run.
    const t0 = Date.now();
    await a.stop();
    nodes.splice(nodes.indexOf(a), 1);
    await until(() => owned(b).length === P, { timeoutMs: 5000, message: 'B owns every partition' });
    const tookMs = Date.now() - t0;
    console.log(`hand-over on graceful stop: node-b served all ${P} partitions ${tookMs} ms after node-a began to stop`);
    expect(tookMs).toBeLessThan(2000);
    expect(openRuns(b)).toBe(24);

    // The workflows complete on B alone.
    const closed = new Set<string>();
    const parts = startOrderParticipants(client, domain, { deciders: 4, workers: 4, pollTimeoutMs: 1000, onClosed: (id) => closed.add(id) });
    try {
      await until(() => closed.size === ids.length, { timeoutMs: 20_000, message: 'every order completed' });
    } finally {
      await parts.stop();
    }
    for (const run of runs) expectOrderHistory(await client.history(domain, run));
  }, 60_000);

  it('a node whose lease another node took steps down at once and stops serving that partition', async () => {
    const b = nodes[0]!;
    const p = owned(b)[0]!;
    // Someone else writes the lease (as after an expiry B did not notice): B's next renewal fails its CAS.
    const kv = b.leases!['store'].kv;
    await kv.put(`p.${p}`, encode({ node: 'intruder', since: Date.now(), epoch: 99 }));
    await until(() => !b.router.owns(p), { timeoutMs: 3000, message: `node-b stepped down from partition ${p}` });
    expect(b.leases!.ownedSince().has(p)).toBe(false);
    // The intruder never renews: its lease expires and B takes the partition back, rebuilt.
    await until(() => b.router.owns(p), { timeoutMs: 6000, message: `node-b took partition ${p} back after the expiry` });
    const metrics = await b.metrics.render();
    expect(metrics).toMatch(/actorflow_partition_lease_changes_total\{change="stepped_down"\} 1/);
    expect(metrics).toMatch(/actorflow_partitions_owned 8/);
  }, 20_000);

  it('a node configured with another partition count uses the stored one', async () => {
    const c = await start('node-c', { partitions: 4 });
    expect(c.config.partitions).toBe(P);
    expect(c.router.partitions).toBe(P);
    await until(() => owned(c).length === 4, { timeoutMs: 8000, message: 'node-c took its half' });
  }, 20_000);
});

describe('a node started without cluster mode', () => {
  it('refuses to start where clustered nodes hold live leases, and starts once they are gone', async () => {
    // Its own prefix: a cluster of its own on the same server, apart from the nodes above.
    const peer = await start('node-c', { prefix: 'guard' });
    await expect(startNode({ natsUrl: env.url, prefix: 'guard', partitions: P, nodeName: 'static-node', logger }))
      .rejects.toThrow(/clustered engine nodes \(node-c\) hold partition leases on this NATS: start this node with AF_CLUSTER=1/);
    await peer.stop(); // a graceful stop deletes its leases and its membership at once
    const alone = await startNode({ natsUrl: env.url, prefix: 'guard', partitions: P, nodeName: 'static-node', logger });
    nodes.push(alone);
    expect(owned(alone)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
