import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startNode, type EngineNode } from '../../src/server.js';
import { parseAccessKeys } from '../../src/transport/access-keys.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freePort } from '../helpers/nats-cluster.js';
import { startOpenRuns } from '../helpers/open-runs.js';
import { until } from '../helpers/until.js';
import { capturedLogger } from '../helpers/captured-log.js';

/** GET /healthz and /readyz on the HTTP port: through start-up recovery and a NATS outage. */
const OPEN_RUNS = 300;
const KEYS = parseAccessKeys('AKIDHEALTH:health-secret', 'test');

interface Probe { status: number; body: { status: string; reason?: string } }
async function probe(port: number, path: string): Promise<Probe> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.json() as Probe['body'] };
}

describe('health and readiness probes', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const f of cleanup.reverse()) await f().catch(() => undefined); }, 30_000);

  it('/readyz is 503 while open runs are rebuilt, 200 once served, 503 during a NATS outage; /healthz 200 throughout, unsigned', async () => {
    const natsPort = await freePort();
    const first: NatsServerHandle = await startNatsServer({ args: ['-p', String(natsPort)] });
    cleanup.push(() => first.stop());
    // A first node leaves OPEN_RUNS open runs behind (nobody polls their task list).
    const before = await startNode({ natsUrl: first.url, partitions: 4, logger: pino({ level: 'silent' }) });
    const client = await ActorFlowClient.connect({ servers: first.url });
    await startOpenRuns(client, OPEN_RUNS, 'health');
    await client.close();
    await before.stop();

    // The second node rebuilds them; its port answers meanwhile.
    const httpPort = await freePort();
    const { logger, lines } = capturedLogger();
    let node: EngineNode | undefined;
    const starting = startNode({
      natsUrl: first.url, partitions: 4, logger, recoveryLogMs: 10, http: { port: httpPort, accessKeys: KEYS },
    }).then((n) => { node = n; cleanup.push(() => n.stop()); return n; });
    const seen: Probe[] = [];
    let aws503 = false;
    while (!node) {
      const p = await probe(httpPort, '/readyz').catch(() => undefined);
      if (p && seen.at(-1)?.status !== p.status) seen.push(p);
      if (p?.status === 503 && !aws503) {
        const r = await fetch(`http://127.0.0.1:${httpPort}/`, { method: 'POST', headers: { 'x-amz-target': 'SimpleWorkflowService.ListDomains' }, body: '{}' });
        aws503 = r.status === 503 && (await r.json() as { __type: string }).__type === 'ServiceUnavailable';
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await starting;
    expect(seen[0]).toEqual({ status: 503, body: { status: 'not ready', reason: 'starting: owned partitions are being rebuilt from history' } });
    expect(aws503).toBe(true);
    expect(await probe(httpPort, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await probe(httpPort, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    // Recovery logged how far it got while it ran, and rebuilt every run.
    const progress = lines().filter((l) => l.msg === 'recovery in progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ partitions: 4, hosts: 2 });
    expect(Math.max(...progress.map((l) => l.historiesRead as number))).toBeGreaterThan(0);
    expect(lines().find((l) => l.msg === 'open runs rebuilt from history')).toMatchObject({ recovered: OPEN_RUNS });

    // NATS goes away: not ready (the process still serves /healthz); back: ready again.
    first.kill('SIGKILL');
    await until(async () => (await probe(httpPort, '/readyz')).status === 503, { timeoutMs: 15_000, message: '/readyz 503 after NATS died' });
    expect(await probe(httpPort, '/readyz')).toEqual({ status: 503, body: { status: 'not ready', reason: 'NATS is disconnected' } });
    expect((await probe(httpPort, '/healthz')).status).toBe(200);
    const second = await startNatsServer({ args: ['-p', String(natsPort), '-sd', first.storeDir] });
    cleanup.push(() => second.stop());
    await until(async () => (await probe(httpPort, '/readyz')).status === 200, { timeoutMs: 20_000, message: '/readyz 200 after NATS came back' });
  }, 90_000);
});
