import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

let server: NatsServerHandle;
let a: EngineNode;
let b: EngineNode;
let client: ActorFlowClient;

beforeAll(async () => {
  server = await startNatsServer();
  const logger = pino({ level: 'silent' });
  a = await startNode({ natsUrl: server.url, partitions: 4, ownPartitions: [0, 1], nodeName: 'a', logger, sleepAfterMs: 600_000 });
  b = await startNode({ natsUrl: server.url, partitions: 4, ownPartitions: [2, 3], nodeName: 'b', logger, sleepAfterMs: 600_000 });
  client = await ActorFlowClient.connect({ servers: server.url });
});
afterAll(async () => {
  await client.close();
  await a.stop();
  await b.stop();
  await server.stop();
});

describe('partition routing', () => {
  it('runs each execution on its partition owner, wherever the request enters', async () => {
    const domain = 'routing';
    await registerOrderTypes(client, domain);
    const ids = Array.from({ length: 24 }, (_, i) => `wf-${i}`);
    const runs = await Promise.all(ids.map(async (workflowId) => ({
      workflowId, ...(await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW })),
    })));
    // Both nodes serve the API (one queue group); each holds only the runs of its own partitions.
    const onA = a.owner.liveRuns();
    const onB = b.owner.liveRuns();
    expect(onA.length + onB.length).toBe(24);
    expect(onA.length).toBeGreaterThan(0);
    expect(onB.length).toBeGreaterThan(0);
    expect(onA.every((k) => k.partition <= 1)).toBe(true);
    expect(onB.every((k) => k.partition >= 2)).toBe(true);
    for (const k of [...onA, ...onB]) expect(k.partition).toBe(a.router.partitionOf(domain, k.workflowId));
    const p = startOrderParticipants(client, domain, { deciders: 4, workers: 4, pollTimeoutMs: 1000 });
    try {
      await until(async () => {
        const ds = await Promise.all(runs.map((r) => client.call('DescribeWorkflowExecution', { domain, execution: r })));
        return ds.every((d) => d.executionInfo.closeStatus === 'COMPLETED');
      }, { timeoutMs: 20_000 });
    } finally {
      await p.stop();
    }
    for (const r of runs) {
      const events = await client.history(domain, r);
      expect(events.map((e) => e.eventId)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    }
    expect(a.owner.liveCount + b.owner.liveCount).toBe(0);
  });
});
