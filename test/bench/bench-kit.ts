/**
 * What the benchmarks share: an engine node in its own process, the machine's own ceiling measured in
 * the same run (raw JetStream appends, core NATS request/reply), CPU accounting per process, and
 * table printing. Absolute rates vary ±25 % and more between these machines from day to day; the
 * fraction of the same run's ceiling and the CPU spent per workflow are what stay comparable.
 */
import { readFileSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { scrapeMetrics } from '../helpers/prom.js';

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
export const fmt = (n: number, d = 1): string => (Number.isFinite(n) ? n.toFixed(d) : '-');

/** Linux's USER_HZ: /proc reports CPU time in clock ticks of 10 ms. */
const TICK_MS = 10;

/** CPU milliseconds (user + system) a process has used so far, from /proc/PID/stat. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

/** CPU milliseconds this process has used so far. */
export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * GC pause milliseconds the engine has spent so far, by kind (`nodejs_gc_duration_seconds_sum` of
 * its /metrics; `minor` = scavenges, `major` = mark-compact, plus incremental marking steps).
 */
export async function engineGcMs(httpUrl: string): Promise<{ minor: number; other: number }> {
  const out = { minor: 0, other: 0 };
  for (const s of await scrapeMetrics(httpUrl)) {
    if (s.name === 'nodejs_gc_duration_seconds_sum') out[s.labels.kind === 'minor' ? 'minor' : 'other'] += s.value * 1000;
  }
  return out;
}

/** CPU of the engine, of nats-server and of this (client) process between two points of a run. */
export class CpuMeter {
  private start = { engine: 0, nats: 0, clients: 0 };
  constructor(private readonly enginePid: number, private readonly natsPid: number) {}
  mark(): void {
    this.start = { engine: cpuMsOf(this.enginePid), nats: cpuMsOf(this.natsPid), clients: selfCpuMs() };
  }
  /** CPU ms spent since mark(), per process. */
  spent(): { engine: number; nats: number; clients: number } {
    return {
      engine: cpuMsOf(this.enginePid) - this.start.engine,
      nats: cpuMsOf(this.natsPid) - this.start.nats,
      clients: selfCpuMs() - this.start.clients,
    };
  }
}

/**
 * One engine node (`src/serve.ts`) in its own process on `url`, ready; ENGINE_NODE_ARGS adds Node
 * flags, PROFILE=1 writes a CPU profile to /tmp/prof.
 */
export function startEngineProcess(url: string, env: Record<string, string> = {}): Promise<EngineProcess> {
  const nodeArgs = [
    ...(process.env.PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
    ...(process.env.ENGINE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ];
  return spawnEngine(url, { AF_LOG_LEVEL: 'warn', ...env }, { nodeArgs });
}

export interface RawRates {
  /** JetStream R1 appends/s awaited one at a time. */
  appendsSeq: number;
  /** JetStream R1 appends/s with 64 in flight. */
  appendsPar: number;
  /** Core NATS request/reply round trips/s with 16 requesters and one responder. */
  requests: number;
}

/** The machine's raw JetStream and request/reply rates on this server, measured now. */
export async function rawRates(url: string): Promise<RawRates> {
  const nc = await connect({ servers: url });
  try {
    const { seq, par } = await appendRates(nc);
    return { appendsSeq: seq, appendsPar: par, requests: await requestRate(nc, url) };
  } finally {
    await nc.close();
  }
}

async function appendRates(nc: NatsConnection): Promise<{ seq: number; par: number }> {
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
  return { seq, par };
}

/** Round trips/s of 16 requesters against one echo responder on its own connection. */
async function requestRate(nc: NatsConnection, url: string): Promise<number> {
  const responder = await connect({ servers: url });
  const sub = responder.subscribe('bench.echo', { callback: (_e, m) => { m.respond(m.data); } });
  await responder.flush();
  const payload = new Uint8Array(200);
  const M = 30000;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 16 }, async () => { while (next < M) { next++; await nc.request('bench.echo', payload, { timeout: 5000 }); } }));
  const rate = M / ((performance.now() - t0) / 1000);
  sub.unsubscribe();
  await responder.close();
  return rate;
}

/**
 * Appends every JetStream stream on the server has taken so far: the sum of their last sequence
 * numbers, which count the messages a work queue has already handed out and removed too.
 */
export async function appendsSoFar(url: string): Promise<number> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    let total = 0;
    for await (const s of jsm.streams.list()) total += s.state.last_seq;
    return total;
  } finally {
    await nc.close();
  }
}

/** Counts the API requests a client sends (every SDK call is one NATS request). */
export function countRequests(client: ActorFlowClient): { count(): number } {
  let n = 0;
  const call = client.call.bind(client);
  client.call = ((action: string, input?: object, opts?: { timeoutMs?: number }) => { n += 1; return call(action, input, opts); }) as typeof client.call;
  return { count: () => n };
}

/**
 * The ceiling of a workflow on this machine, from the same run: the lower of the storage bound
 * (parallel appends/s ÷ appends per workflow) and the messaging bound (request/reply round trips/s ÷
 * requests per workflow), with which one binds.
 */
export function ceiling(raw: RawRates, appendsPerWorkflow: number, requestsPerWorkflow: number): { perSec: number; bound: 'storage' | 'messaging' } {
  const storage = raw.appendsPar / appendsPerWorkflow;
  const messaging = raw.requests / requestsPerWorkflow;
  return storage <= messaging ? { perSec: storage, bound: 'storage' } : { perSec: messaging, bound: 'messaging' };
}

/** Prints rows as a Markdown table (the README's form). */
export function printTable(head: string[], rows: string[][]): void {
  const table = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (c ?? '').padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of rows) console.log(line(r));
}
