import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { Fault } from '../../src/protocol/faults.js';
import type { OwnerCallCounts } from '../../src/engine/router.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import type { NatsServerHandle } from '../helpers/nats-server.js';
import { startTwoNodes, type TwoNodes } from '../helpers/two-nodes.js';
import { until } from '../helpers/until.js';

/** Issue 21, point 5: the SDK sends an execution's requests straight to its owner node. */
let nodes: TwoNodes;
let server: NatsServerHandle;
let a: EngineNode;
let b: EngineNode;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  nodes = await startTwoNodes();
  ({ server, a, b } = nodes);
});
afterAll(async () => { await nodes?.stop(); });

const calls = (): OwnerCallCounts[] => [a.router.ownerCalls(), b.router.ownerCalls()];
/** Owner calls between two snapshots, summed over both nodes, by op. */
function since(before: OwnerCallCounts[]): { local: number; remote: number; remoteByOp: Record<string, number> } {
  const out = { local: 0, remote: 0, remoteByOp: {} as Record<string, number> };
  calls().forEach((now, i) => {
    out.local += now.local - before[i]!.local;
    out.remote += now.remote - before[i]!.remote;
    for (const [op, n] of Object.entries(now.remoteByOp)) {
      const d = n - (before[i]!.remoteByOp[op] ?? 0);
      if (d > 0) out.remoteByOp[op] = (out.remoteByOp[op] ?? 0) + d;
    }
  });
  return out;
}

/** Runs `n` order workflows through `client` and returns the owner calls they made. */
async function orders(client: ActorFlowClient, tag: string, n: number) {
  const domain = `aware-${tag}`;
  await registerOrderTypes(client, domain);
  const before = calls();
  const runs = await Promise.all(Array.from({ length: n }, async (_, i) => ({
    workflowId: `${tag}-${i}`, ...(await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: `${tag}-${i}`, workflowType: ORDER_WORKFLOW })),
  })));
  const p = startOrderParticipants(client, domain, { deciders: 4, workers: 4, pollTimeoutMs: 1000 });
  try {
    await until(async () => {
      const ds = await Promise.all(runs.map((r) => client.call('DescribeWorkflowExecution', { domain, execution: r })));
      return ds.every((d) => d.executionInfo.closeStatus === 'COMPLETED');
    }, { timeoutMs: 30_000 });
  } finally {
    await p.stop();
  }
  for (const r of runs) expect((await client.history(domain, r)).length).toBe(29);
  return since(before);
}

/** Ops a client's request names directly (the rest follow a poll that entered on any node). */
const CLIENT_SCOPED = ['start', 'describe', 'history', 'completeDecision', 'activityResponse', 'signal', 'terminate', 'requestCancel'];
const clientScoped = (byOp: Record<string, number>) => CLIENT_SCOPED.reduce((n, op) => n + (byOp[op] ?? 0), 0);

describe('partition-aware client', () => {
  it('sends every execution-scoped request to the owner; a client without it pays hops for about half', async () => {
    const aware = await ActorFlowClient.connect({ servers: server.url });
    const blind = await ActorFlowClient.connect({ servers: server.url, partitionAware: false });
    try {
      // The client learns the partition count in the background; until then it uses any node.
      await aware.ensureDomain('aware-warm');
      // Eight in a row on their owners (by chance: 1 in 256).
      await until(async () => {
        const before = calls();
        for (let i = 0; i < 8; i++) await aware.call('DescribeWorkflowExecution', { domain: 'aware-warm', execution: { workflowId: `w${i}`, runId: 'r' } }).catch(() => undefined);
        const d = since(before);
        return d.local === 8 && d.remote === 0;
      }, { timeoutMs: 10_000 });
      const withHints = await orders(aware, 'aware', 24);
      const without = await orders(blind, 'blind', 24);
      expect(withHints.local).toBeGreaterThan(24 * 19);
      expect(clientScoped(withHints.remoteByOp)).toBe(0);
      // What still crosses: a task pulled by a poll on one node, handed out by its owner on the other.
      expect(Object.keys(withHints.remoteByOp).every((op) => op === 'startDecision' || op === 'startActivity')).toBe(true);
      // Half the partitions are on the other node: a blind client's requests cross for about half of them.
      expect(clientScoped(without.remoteByOp)).toBeGreaterThan(24 * 5);
      expect(without.remote).toBeGreaterThan(withHints.remote);
    } finally {
      await aware.close();
      await blind.close();
    }
  }, 90_000);

  it('follows the partitions a node serves, and falls back to any node when the owner is gone', async () => {
    const c = await startNode({ natsUrl: server.url, prefix: 'fx', partitions: 4, ownPartitions: [0, 1, 2, 3], nodeName: 'c', logger, noOwnerRetryMs: 300 });
    const raw = await ActorFlowClient.connect({ servers: server.url, prefix: 'fx', partitionAware: false });
    const client = await ActorFlowClient.connect({ servers: server.url, prefix: 'fx' });
    try {
      await raw.ensureDomain('fx');
      // Answered on partition 0's direct subject while c serves partition 0, not after.
      await expect(raw.nc.request('fx.api.ListDomains.0', new Uint8Array(), { timeout: 2000 })).resolves.toBeTruthy();
      c.router.release(0);
      await raw.nc.flush();
      await expect(raw.nc.request('fx.api.ListDomains.0', new Uint8Array(), { timeout: 2000 })).rejects.toThrow(/no responders/i);
      // A request for partition 0 still reaches the node over the generic subject, which finds no owner.
      const id = Array.from({ length: 100 }, (_, i) => `w${i}`).find((w) => c.router.partitionOf('fx', w) === 0)!;
      await until(async () => {
        const e = await client.call('DescribeWorkflowExecution', { domain: 'fx', execution: { workflowId: id, runId: 'r' } }).catch((x: unknown) => x);
        return e instanceof Fault && /has no owner/.test(e.message);
      }, { timeoutMs: 10_000 });
      c.router.serve(0);
      await raw.nc.flush();
      const e = await client.call('DescribeWorkflowExecution', { domain: 'fx', execution: { workflowId: id, runId: 'r' } }).catch((x: unknown) => x);
      expect((e as Fault).name).toBe('UnknownResourceFault');
    } finally {
      await raw.close();
      await client.close();
      await c.stop();
    }
  }, 30_000);
});
