import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startOpenRuns } from '../helpers/open-runs.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freePort } from '../helpers/nats-cluster.js';
import { until } from '../helpers/until.js';

/** Cluster mode: /readyz is 503 while a node rebuilds partitions it has just taken over, 200 once it serves them. */
const P = 8;
const OPEN_RUNS = 400;
const logger = pino({ level: process.env.AF_TEST_LOG ?? 'silent' });

describe('readiness in a cluster', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const f of cleanup.reverse()) await f().catch(() => undefined); }, 30_000);

  it('a node taking over partitions is not ready until it has rebuilt them', async () => {
    const server: NatsServerHandle = await startNatsServer();
    cleanup.push(() => server.stop());
    const opts = { natsUrl: server.url, cluster: true, partitions: P, leaseTtlMs: 2000, leaseRenewMs: 400, logger };
    const a: EngineNode = await startNode({ ...opts, nodeName: 'node-a' });
    const client = await ActorFlowClient.connect({ servers: server.url });
    cleanup.push(() => client.close());
    await startOpenRuns(client, OPEN_RUNS, 'ready');

    const port = await freePort();
    const b: EngineNode = await startNode({ ...opts, nodeName: 'node-b', http: { port, accessKeys: {} } });
    cleanup.push(() => b.stop());
    const readyz = async () => {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      return { status: r.status, body: await r.json() as { status: string; reason?: string } };
    };
    await until(async () => b.router.owned.size > 0 && (await readyz()).status === 200, { timeoutMs: 20_000, message: 'node B ready with a share' });

    // A stops: B takes every partition over, and is not ready while it rebuilds A's runs.
    const seen: { status: number; body: { status: string; reason?: string } }[] = [];
    let stopped = false;
    const stopping = a.stop().then(() => { stopped = true; });
    const deadline = Date.now() + 30_000;
    while ((b.router.owned.size < P || !stopped) && Date.now() < deadline) {
      const p = await readyz();
      if (seen.at(-1)?.status !== p.status) seen.push(p);
      await new Promise((r) => setTimeout(r, 2));
    }
    await stopping;
    expect(b.router.owned.size).toBe(P);
    const notReady = seen.find((p) => p.status === 503);
    expect(notReady?.body).toMatchObject({ status: 'not ready' });
    expect(notReady?.body.reason).toMatch(/^\d+ owned partition\(s\) are being rebuilt from history$/);
    await until(async () => (await readyz()).status === 200, { timeoutMs: 10_000, message: 'node B ready again' });
    expect(b.owner.liveCount + b.owner.sleepingCount).toBe(OPEN_RUNS);
  }, 90_000);
});
