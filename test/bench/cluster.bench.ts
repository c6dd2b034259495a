/**
 * `npm run bench:cluster`: what clustering buys on this machine. Prints two tables:
 *  1. order-workflow throughput (NATS SDK) with 1 engine on one nats-server (R1), 1 engine on a
 *     3-server NATS cluster (R3) and 3 clustered engines on that cluster;
 *  2. partition takeover with 10,000 open executions: SIGKILL the engine holding about a third of
 *     them, time until its partitions are served again and how many runs were rebuilt.
 * Then the cross-node hops of owner calls with and without a partition-aware client.
 * A script, not a test; every process is started here on loopback and stopped at the end.
 */
import { connect } from '@nats-io/transport-node';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { engineName, startEngineCluster, untilBalanced, type EngineCluster } from '../helpers/engine-cluster.js';
import { spawnEngine } from '../helpers/engine-process.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 600);
const OPEN = Number(process.env.BENCH_OPEN ?? 10_000);

/** Starts `n` order workflows (64 starts in flight) and waits for all to complete; workflows/s. */
async function throughput(client: ActorFlowClient, tag: string, n: number): Promise<{ perSec: number; seconds: number }> {
  const domain = `bench-${tag}-${Date.now()}`;
  await registerOrderTypes(client, domain);
  let closed = 0;
  const parts = startOrderParticipants(client, domain, { deciders: 16, workers: 16, pollTimeoutMs: 1000, onClosed: () => { closed++; } });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 64 }, async () => {
    while (next < n) {
      const workflowId = `${tag}-${next++}`;
      await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, input: '{"amount":1}' });
    }
  }));
  await until(() => closed >= n, { timeoutMs: 600_000, intervalMs: 50, message: `${n} workflows closed` });
  const seconds = (performance.now() - t0) / 1000;
  await parts.stop();
  return { perSec: n / seconds, seconds };
}

async function clusterClient(c: EngineCluster, partitionAware = true): Promise<ActorFlowClient> {
  return ActorFlowClient.connect({ connection: await connect({ servers: c.nats.servers.map((s) => s.url), noAsyncTraces: true }), partitionAware });
}

interface NodeStats { liveRuns: number; sleepingRuns: number; ownerCalls: { local: number; remote: number; remoteByOp: Record<string, number> } }

async function nodeStats(c: EngineCluster, i: number): Promise<NodeStats> {
  return JSON.parse(new TextDecoder().decode((await c.nc.request(`af.node.${engineName(i)}.stats`, new Uint8Array(), { timeout: 5000 })).data)) as NodeStats;
}

/** Task hand-outs: a poll that entered on one node got a task of a partition another node owns. */
const HAND_OUTS = new Set(['startDecision', 'startActivity']);

/** Owner calls of every engine between two snapshots: total, crossing nodes, and of those the task hand-outs. */
function hops(before: NodeStats[], after: NodeStats[]): { calls: number; remote: number; handOuts: number } {
  let calls = 0; let remote = 0; let handOuts = 0;
  after.forEach((a, i) => {
    const b = before[i]!.ownerCalls;
    calls += a.ownerCalls.local - b.local + a.ownerCalls.remote - b.remote;
    remote += a.ownerCalls.remote - b.remote;
    for (const [op, n] of Object.entries(a.ownerCalls.remoteByOp)) if (HAND_OUTS.has(op)) handOuts += n - (b.remoteByOp[op] ?? 0);
  });
  return { calls, remote, handOuts };
}

async function main(): Promise<void> {
  const rows: string[][] = [];
  // 1 engine, one nats-server (R1).
  {
    const nats = await startNatsServer();
    const engine = await spawnEngine(nats.url);
    const client = await ActorFlowClient.connect({ servers: nats.url });
    const r = await throughput(client, 'r1', WORKFLOWS);
    rows.push(['1 engine, 1 nats-server (R1)', String(WORKFLOWS), r.seconds.toFixed(1), r.perSec.toFixed(1)]);
    await client.close();
    await engine.stop();
    await nats.stop();
  }
  // 1 and 3 clustered engines on a 3-server NATS cluster (R3).
  for (const engines of [1, 3]) {
    const c = await startEngineCluster({ engines, env: { AF_LOG_LEVEL: 'warn' } });
    await untilBalanced(c, engines);
    const client = await clusterClient(c);
    const r = await throughput(client, `c${engines}`, WORKFLOWS);
    rows.push([`${engines} engine${engines > 1 ? 's' : ''}, 3 nats-servers (R3)`, String(WORKFLOWS), r.seconds.toFixed(1), r.perSec.toFixed(1)]);
    await client.close();
    await c.stop();
  }
  console.log('\norder-fulfilment workflows (4 activities, 29 events), NATS SDK, 16 deciders + 16 workers in the bench process');
  console.log(table(['setup', 'workflows', 'seconds', 'workflows/s'], rows));

  // Cross-node hops: the same workflows on 3 engines, through a client that sends every request to
  // any node, then through a partition-aware one (issue 21, point 5).
  {
    const c = await startEngineCluster({ engines: 3, env: { AF_LOG_LEVEL: 'warn' } });
    await untilBalanced(c, 3);
    const hopRows: string[][] = [];
    for (const aware of [false, true]) {
      const client = await clusterClient(c, aware);
      if (aware) await new Promise((r) => setTimeout(r, 500)); // it learns the partition count in the background
      const before = await Promise.all(c.engines.map((_, i) => nodeStats(c, i)));
      const r = await throughput(client, aware ? 'aware' : 'blind', WORKFLOWS);
      const h = hops(before, await Promise.all(c.engines.map((_, i) => nodeStats(c, i))));
      const pct = (n: number) => `${n} (${(100 * n / h.calls).toFixed(1)} %)`;
      hopRows.push([aware ? 'partition-aware (default)' : 'any node (partitionAware: false)', r.perSec.toFixed(1), String(h.calls),
        pct(h.remote), pct(h.remote - h.handOuts), pct(h.handOuts)]);
      await client.close();
    }
    await c.stop();
    console.log(`\ncross-node hops, 3 engines on 3 nats-servers, ${WORKFLOWS} order workflows (owner calls = requests for an execution, made on the node that received them)`);
    console.log(table(['client', 'workflows/s', 'owner calls', 'crossed nodes', 'of which named by the request', 'of which task hand-outs after a poll'], hopRows));
  }

  // Takeover with OPEN open executions.
  const c = await startEngineCluster({ engines: 3 });
  await untilBalanced(c, 3);
  const client = await clusterClient(c);
  const domain = `bench-open-${Date.now()}`;
  await registerOrderTypes(client, domain);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 128 }, async () => {
    while (next < OPEN) {
      const workflowId = `open-${next++}`;
      await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '600' });
    }
  }));
  const startSec = (performance.now() - t0) / 1000;
  const victim = 1;
  const lost = await c.partitionsOf(engineName(victim));
  const stats = await Promise.all(c.engines.map((_, i) => nodeStats(c, i)));
  const held = stats[victim]!.liveRuns + stats[victim]!.sleepingRuns;
  const killAt = Date.now();
  c.engines[victim]!.kill('SIGKILL');
  const servedAt = await c.servedAgain(lost, 120_000);
  const after = await Promise.all(c.engines.map((_, i) => i === victim ? undefined : nodeStats(c, i)));
  const recoverLines = c.engines.filter((_, i) => i !== victim).flatMap((e) => e.output().split('\n').filter((l) => l.includes('partition taken over')).map((l) => JSON.parse(l) as { recoverMs: number; silentForMs: number }));
  const recoverMs = Math.max(0, ...recoverLines.map((l) => l.recoverMs));
  const silentMs = Math.min(...recoverLines.map((l) => l.silentForMs));
  console.log(`\npartition takeover with ${OPEN} open executions (3 engines, 3 nats-servers R3, lease TTL 6 s, renew 1.5 s)`);
  console.log(table(['what', 'value'], [
    ['open executions started', `${OPEN} in ${startSec.toFixed(1)} s (${(OPEN / startSec).toFixed(0)}/s)`],
    ['killed engine held', `${lost.length} partitions, ${held} open executions`],
    ['served again after the SIGKILL', `${servedAt - killAt} ms`],
    ['  of which: lease expiry seen by a survivor', `${Number.isFinite(silentMs) ? silentMs : '-'} ms after the last renewal`],
    ['  of which: rebuilding from history (slowest batch)', `${recoverMs} ms`],
    ['open executions on the survivors afterwards', after.filter(Boolean).map((s) => s!.liveRuns + s!.sleepingRuns).join(' + ')],
  ]));
  await client.close();
  await c.stop();
}

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(w[i]!)).join(' | ')} |`;
  return [line(head), `|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
