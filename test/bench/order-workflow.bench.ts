/**
 * `npm run bench`: order-fulfilment workflows through the NATS SDK against one engine node (its own
 * process) on a fresh nats-server, once with each durability setting (default, then fsync:
 * `sync_interval: always`); prints one table with both and what fsync costs. A script, not a test.
 */
import { spawn } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ActorFlowClient, attributesOf } from '../../src/sdk/client.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import type { Durability } from '../../src/nats/durability.js';
import { startNatsServer } from '../helpers/nats-server.js';

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };
const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function rawAppendRate(url: string): Promise<{ seq: number; par: number }> {
  const nc = await connect({ servers: url });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: 'BENCH_RAW', subjects: ['bench.raw.>'] });
  const payload = new Uint8Array(300);
  let t0 = performance.now();
  const N = 3000;
  for (let i = 0; i < N; i++) await js.publish(`bench.raw.${i % 50}`, payload);
  const seq = N / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  const M = 20000;
  let next = 0;
  await Promise.all(Array.from({ length: 64 }, async () => { while (next < M) { next++; await js.publish(`bench.raw.${next % 50}`, payload); } }));
  const par = M / ((performance.now() - t0) / 1000);
  await jsm.streams.delete('BENCH_RAW');
  await nc.close();
  return { seq, par };
}

async function startEngineProcess(url: string): Promise<() => Promise<void>> {
  const proc = spawn(process.execPath, [...(process.env.PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '--import', 'tsx', 'src/serve.ts'], { env: { ...process.env, NATS_URL: url, AF_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('"ready":true')) resolve(); });
    proc.once('exit', (c) => reject(new Error(`engine exited ${c}`)));
  });
  return () => new Promise((resolve) => { proc.once('exit', () => resolve()); proc.kill('SIGTERM'); });
}

async function _unused(client: ActorFlowClient, domain: string, total: number, inFlight: number, tag: string) {
  const latencies: number[] = [];
  const closed = new Map<string, () => void>();
  let started = 0;
  const t0 = performance.now();
  const one = async () => {
    while (started < total) {
      const id = `${tag}-${started++}`;
      const s = performance.now();
      const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: id, workflowType: ORDER_WORKFLOW, input: '{"amount":1}' });
      await new Promise<void>((resolve) => closed.set(id, resolve));
      latencies.push(performance.now() - s);
      void runId;
    }
  };
  return { latencies, closed, run: async () => { await Promise.all(Array.from({ length: inFlight }, one)); return (performance.now() - t0) / 1000; } };
}

/** One run of every scenario on a fresh nats-server of this durability; its table rows and raw append rates. */
async function benchOnce(durability: Durability): Promise<{ rows: string[][]; raw: { seq: number; par: number } }> {
  const server = await startNatsServer({ durability });
  const raw = await rawAppendRate(server.url);
  const stopEngine = await startEngineProcess(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const domain = 'bench';
  await registerOrderTypes(client, domain);
  // Completion is seen by the decider (it answers CompleteWorkflowExecution), no polling of Describe.
  const waiters = new Map<string, () => void>();
  const participants = startOrderParticipants(client, domain, {
    deciders: Number(process.env.DECIDERS ?? 48), workers: Number(process.env.WORKERS ?? 48), pollTimeoutMs: 5000,
    onClosed: (id) => { waiters.get(id)?.(); waiters.delete(id); },
  });
  const rows: string[][] = [];
  const closed = (workflowId: string) => new Promise<void>((resolve) => waiters.set(workflowId, resolve));
  const done = (_workflowId: string, _runId: string, p: Promise<void>) => p;

  // 1. Single workflow, idle pollers waiting: start-to-close and dispatch latency.
  const single: number[] = [];
  const dispatch: number[] = [];
  for (let i = 0; i < 60; i++) {
    const workflowId = `single-${i}`;
    const t = performance.now();
    const c = closed(workflowId);
    const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, input: '{}' });
    await done(workflowId, runId, c);
    single.push(performance.now() - t);
    const events = await client.history(domain, { workflowId, runId });
    const at = new Map(events.map((e) => [e.eventId, e.eventTimestamp * 1000]));
    for (const e of events) {
      if (e.eventType === 'ActivityTaskStarted' || e.eventType === 'DecisionTaskStarted') dispatch.push(e.eventTimestamp * 1000 - at.get(attributesOf(e).scheduledEventId)!);
    }
  }
  rows.push([durability, 'single workflow, idle pollers', '1', '60', '-', fmt(pct(single, 50)), fmt(pct(single, 99)), fmt(pct(dispatch, 50)), fmt(pct(dispatch, 99))]);

  // 2. Throughput with 50 and 200 executions in flight (completion seen by the decider's accepted close).
  for (const inFlight of [50, 200]) {
    const total = inFlight * 8;
    const lat: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const workflowId = `tp${inFlight}-${next++}`;
        const t = performance.now();
        const c = closed(workflowId);
        const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, input: '{}' });
        await done(workflowId, runId, c);
        lat.push(performance.now() - t);
      }
    }));
    const secs = (performance.now() - t0) / 1000;
    rows.push([durability, `order workflows, ${inFlight} in flight`, String(inFlight), String(total), fmt(total / secs), fmt(pct(lat, 50)), fmt(pct(lat, 99)), '-', '-']);
  }
  await participants.stop();
  await client.close();
  await stopEngine();
  await server.stop();
  return { rows, raw };
}

/** Both durability settings in one run (AF_DURABILITY, src/nats/durability.ts), then what fsync costs. */
async function main(): Promise<void> {
  const runs = { default: await benchOnce('default'), fsync: await benchOnce('fsync') };
  const head = ['durability', 'scenario', 'in flight', 'workflows', 'completed wf/s', 'start→close p50 ms', 'p99 ms', 'dispatch p50 ms', 'dispatch p99 ms'];
  const table = [head, ...runs.default.rows, ...runs.fsync.rows];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  for (const r of table) console.log(`| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`);
  console.log('');
  for (const d of ['default', 'fsync'] as const) {
    console.log(`raw JetStream R1 appends, ${d}: ${fmt(runs[d].raw.seq, 0)}/s awaited one at a time, ${fmt(runs[d].raw.par, 0)}/s with 64 in flight`);
  }
  // fsync's cost as default ÷ fsync: throughput for the loaded rows, start→close p50 for the single workflow.
  const ratio = (a: string, b: string) => fmt(Number(a) / Number(b), 2);
  console.log(`fsync cost (default ÷ fsync): raw appends ${fmt(runs.default.raw.seq / runs.fsync.raw.seq, 2)}× one at a time, ${fmt(runs.default.raw.par / runs.fsync.raw.par, 2)}× with 64 in flight`);
  runs.default.rows.forEach((r, i) => {
    const f = runs.fsync.rows[i]!;
    console.log(r[4] === '-'
      ? `  ${r[1]}: start→close p50 ${r[5]} ms → ${f[5]} ms (fsync ${ratio(f[5]!, r[5]!)}× slower)`
      : `  ${r[1]}: ${r[4]} → ${f[4]} wf/s (default ${ratio(r[4]!, f[4]!)}× faster)`);
  });
  console.log('engine: one node in its own process; clients (48 deciders, 48 workers, starters) in this process; 2 cores shared with nats-server');
}

void _unused;
main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
