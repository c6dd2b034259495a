import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ORDER_WORKFLOW, registerOrderTypes, startOrderParticipants } from '../../src/demo/order-fulfilment.js';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freePort } from '../helpers/nats-cluster.js';
import { uniqueDomain } from '../helpers/engine.js';

describe('SDK through a NATS outage longer than the client default of 10 reconnect attempts (~20 s)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const f of cleanup.reverse()) await f().catch(() => undefined); });

  it('reconnects, its pollers resume, and a workflow started after the outage completes', async () => {
    const port = await freePort();
    const first = await startNatsServer({ args: ['-p', String(port)] });
    const node: EngineNode = await startNode({ natsUrl: first.url, partitions: 2, logger: pino({ level: 'silent' }) });
    cleanup.push(() => node.stop());
    const client = await ActorFlowClient.connect({ servers: first.url });
    cleanup.push(() => client.close());
    const domain = uniqueDomain('reconnect');
    await registerOrderTypes(client, domain);
    const participants = startOrderParticipants(client, domain, { pollTimeoutMs: 2000 });
    cleanup.push(() => participants.stop());

    // 25 s without a server, then the same server (same port and store) back.
    first.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 25_000));
    const second: NatsServerHandle = await startNatsServer({ args: ['-p', String(port), '-sd', first.storeDir] });
    cleanup.push(async () => { await second.stop(); await first.stop(); });

    expect(client.nc.isClosed()).toBe(false);
    const workflowId = `after-outage-${Date.now()}`;
    const started = Date.now();
    let runId: string | undefined;
    while (!runId && Date.now() - started < 20_000) {
      runId = await client.call<{ runId: string }>('StartWorkflowExecution', {
        domain, workflowId, workflowType: ORDER_WORKFLOW, input: JSON.stringify({ orderId: workflowId, amount: 1 }),
      }).then((r) => r.runId, () => undefined);
      if (!runId) await new Promise((r) => setTimeout(r, 250));
    }
    expect(runId).toBeDefined();
    let status = 'OPEN';
    while (status === 'OPEN' && Date.now() - started < 40_000) {
      await new Promise((r) => setTimeout(r, 200));
      const d = await client.call<{ executionInfo: { executionStatus: string; closeStatus?: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId, runId } }).catch(() => undefined);
      if (d) status = d.executionInfo.executionStatus === 'OPEN' ? 'OPEN' : d.executionInfo.closeStatus ?? 'CLOSED';
    }
    expect(status).toBe('COMPLETED');
  }, 120_000);
});
