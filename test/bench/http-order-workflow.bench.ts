/**
 * `npx tsx test/bench/http-order-workflow.bench.ts`: the order-fulfilment workflow through the AWS
 * JSON 1.0 HTTP gateway with @aws-sdk/client-swf only. A script, not a test.
 *
 * - one engine node in its own process (src/serve.ts, AF_HTTP_PORT=0) on a fresh nats-server;
 * - CLIENTS (default 4) client processes, each its own Node with its own SWFClient: starters plus
 *   DECIDERS long-polling deciders on the process's own decision task list (so the process sees the
 *   close of the workflows it started) and WORKERS long-polling activity workers on the shared
 *   activity list (the activity types' default);
 * - a warm-up, then 1 (40 runs back to back: the per-workflow floor), 50 and 200 executions in
 *   flight (ROUNDS × in-flight executions each, default 8), start → accepted
 *   CompleteWorkflowExecution measured per execution.
 *
 * Prints a table (workflows/s, start→close p50/p99) plus the CPU each side used, so one can tell
 * whether the clients or the engine was the limit, and the mean gaps between history events of
 * sampled runs (dispatch waits vs. the clients' round trips). The 1-minute load average is printed
 * too: on a shared machine other work skews every number.
 *
 * Knobs (env): CLIENTS, DECIDERS, WORKERS (per client process), ROUNDS, IN_FLIGHT (comma list,
 * default "1,50,200"), BENCH_DEBUG=1 prints every client error as it happens; PROFILE=1 and
 * ENGINE_NODE_ARGS as in bench-kit's startEngineProcess.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  PollForActivityTaskCommand, PollForDecisionTaskCommand, RespondActivityTaskCompletedCommand, RespondDecisionTaskCompletedCommand,
  GetWorkflowExecutionHistoryCommand, StartWorkflowExecutionCommand, SWFClient, type HistoryEvent,
} from '@aws-sdk/client-swf';
import { startNatsServer } from '../helpers/nats-server.js';
import { cpuMsOf, fmt, pct, printTable, startEngineProcess } from './bench-kit.js';
import { ACTIVITIES, decideOrder, ORDER_TYPE, registerOrder } from '../helpers/swf-sdk-order.js';

// Node 20 is this project's floor; the SDK's notice that later releases need 22 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const CLIENTS = Number(process.env.CLIENTS ?? 4);
const DECIDERS = Number(process.env.DECIDERS ?? 32);
const WORKERS = Number(process.env.WORKERS ?? 32);
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const IN_FLIGHT = (process.env.IN_FLIGHT ?? '1,50,200').split(',').map(Number);

type ToClient =
  | { type: 'init'; endpoint: string; domain: string; index: number }
  | { type: 'run'; tag: string; inFlight: number; total: number }
  | { type: 'stop' };
type FromClient =
  | { type: 'ready' }
  | { type: 'done'; latencies: number[]; endedAt: number; cpuMs: number; calls: number; errors: number; firstError?: string; gaps: Record<string, number[]> }
  | { type: 'stopped' };

// --- client process -------------------------------------------------------------------------------

function swfClient(endpoint: string): SWFClient {
  // Long polls hold a socket each: room for every poller, starter and response at once.
  const httpAgent = new Agent({ keepAlive: true, maxSockets: 1024 });
  return new SWFClient({
    endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' },
    requestHandler: { httpAgent },
  });
}

async function clientMain(): Promise<void> {
  const send = (m: FromClient) => process.send!(m);
  let swf: SWFClient | undefined;
  let domain = '';
  let decisions = '';
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // every held poll listens to it
  const waiting = new Map<string, () => void>();
  const loops: Promise<void>[] = [];
  let errors = 0;
  let calls = 0;
  let firstError: string | undefined;
  const failed = (e: unknown) => {
    if (stop.signal.aborted) return;
    errors++;
    if (process.env.BENCH_DEBUG) console.error('client error', e);
    firstError ??= e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  };

  const decider = async (identity: string) => {
    while (!stop.signal.aborted) {
      try {
        const task = await swf!.send(new PollForDecisionTaskCommand({ domain, taskList: { name: decisions }, identity }), { abortSignal: stop.signal });
        if (!task.taskToken) continue;
        const events: HistoryEvent[] = [...task.events ?? []];
        for (let next = task.nextPageToken; next;) {
          const page = await swf!.send(new PollForDecisionTaskCommand({ domain, taskList: { name: decisions }, nextPageToken: next }));
          events.push(...page.events ?? []);
          next = page.nextPageToken;
        }
        const answer = decideOrder(events);
        await swf!.send(new RespondDecisionTaskCompletedCommand({ taskToken: task.taskToken, decisions: answer }));
        if (answer.some((d) => /WorkflowExecution$/.test(d.decisionType ?? ''))) {
          const id = task.workflowExecution!.workflowId!;
          waiting.get(id)?.();
          waiting.delete(id);
        }
      } catch (e) { failed(e); }
    }
  };
  const worker = async (identity: string) => {
    while (!stop.signal.aborted) {
      try {
        const task = await swf!.send(new PollForActivityTaskCommand({ domain, taskList: { name: ACTIVITIES }, identity }), { abortSignal: stop.signal });
        if (!task.taskToken) continue;
        const order = JSON.parse(task.input ?? '{}') as Record<string, unknown>;
        const result = JSON.stringify({ ...order, [task.activityType!.name!]: 'ok' });
        await swf!.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result }));
      } catch (e) { failed(e); }
    }
  };

  const run = async (tag: string, inFlight: number, total: number) => {
    errors = 0;
    firstError = undefined;
    const latencies: number[] = [];
    const sample: { workflowId: string; runId: string }[] = [];
    const cpu0 = process.cpuUsage();
    const calls0 = calls;
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const workflowId = `${tag}-${next++}`;
        const t = performance.now();
        const closed = new Promise<void>((resolve) => waiting.set(workflowId, resolve));
        try {
          const { runId } = await swf!.send(new StartWorkflowExecutionCommand({
            domain, workflowId, workflowType: ORDER_TYPE, taskList: { name: decisions }, input: '{"orderId":1}',
          }));
          if (sample.length < 25 && next > inFlight) sample.push({ workflowId, runId: runId! });
        } catch (e) {
          waiting.delete(workflowId);
          failed(e);
          continue;
        }
        await closed;
        latencies.push(performance.now() - t);
      }
    }));
    const cpu = process.cpuUsage(cpu0);
    const callsMade = calls - calls0;
    const endedAt = Date.now();
    // Where the time went: gaps between consecutive history events, by transition.
    const gaps: Record<string, number[]> = {};
    for (const execution of sample) {
      const { events = [] } = await swf!.send(new GetWorkflowExecutionHistoryCommand({ domain, execution }));
      for (let i = 1; i < events.length; i++) {
        const k = `${events[i - 1]!.eventType} → ${events[i]!.eventType}`;
        (gaps[k] ??= []).push(events[i]!.eventTimestamp!.getTime() - events[i - 1]!.eventTimestamp!.getTime());
      }
    }
    send({ type: 'done', latencies, endedAt, cpuMs: (cpu.user + cpu.system) / 1000, calls: callsMade, errors, gaps, ...(firstError ? { firstError } : {}) });
  };

  process.on('message', (m: ToClient) => {
    if (m.type === 'init') {
      swf = swfClient(m.endpoint);
      // Every AWS JSON call this process makes (polls included), for the engine's CPU per call.
      swf.middlewareStack.add((next) => (args) => { calls++; return next(args); }, { step: 'initialize' });
      domain = m.domain;
      decisions = `bench-decisions-${m.index}`;
      for (let i = 0; i < DECIDERS; i++) loops.push(decider(`decider-${m.index}-${i}`));
      for (let i = 0; i < WORKERS; i++) loops.push(worker(`worker-${m.index}-${i}`));
      send({ type: 'ready' });
    } else if (m.type === 'run') {
      void run(m.tag, m.inFlight, m.total);
    } else {
      stop.abort();
      void Promise.all(loops).then(() => {
        swf?.destroy();
        send({ type: 'stopped' });
        process.disconnect();
      });
    }
  });
}

// --- orchestrator -----------------------------------------------------------------------------------

const progress = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
class ClientProc {
  private readonly proc: ChildProcess;
  private waiters: { resolve(m: FromClient): void; reject(e: Error): void }[] = [];
  private exited: Error | undefined;
  constructor(index: number) {
    this.proc = fork(fileURLToPath(import.meta.url), ['--client', String(index)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.proc.on('message', (m: FromClient) => this.waiters.shift()?.resolve(m));
    this.proc.once('exit', (code, signal) => {
      // A client that dies fails the run instead of leaving it waiting.
      this.exited = new Error(`client process ${index} exited (${signal ?? `code ${code}`})`);
      for (const w of this.waiters.splice(0)) w.reject(this.exited);
    });
  }
  ask<T extends FromClient>(m: ToClient): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.exited) { reject(this.exited); return; }
      this.waiters.push({ resolve: resolve as (m: FromClient) => void, reject });
      this.proc.send(m);
    });
  }
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    await this.ask({ type: 'stop' }).catch(() => undefined);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    this.proc.kill('SIGKILL');
  }
}

interface Phase { gaps: Record<string, number[]>; inFlight: number; total: number; calls: number; secs: number; latencies: number[]; clientCpuMs: number; engineCpuMs: number; natsCpuMs: number; errors: number; firstError?: string }

async function phase(clients: ClientProc[], tag: string, inFlight: number, rounds: number, enginePid: number, natsPid: number): Promise<Phase> {
  const share = (n: number, i: number) => Math.floor(n / clients.length) + (i < n % clients.length ? 1 : 0);
  const e0 = cpuMsOf(enginePid);
  const n0 = cpuMsOf(natsPid);
  const t0 = Date.now();
  const done = await Promise.all(clients.map((c, i) => {
    const k = share(inFlight, i);
    return c.ask<Extract<FromClient, { type: 'done' }>>({ type: 'run', tag: `${tag}-c${i}`, inFlight: k, total: k * rounds });
  }));
  const secs = (Math.max(...done.map((d) => d.endedAt)) - t0) / 1000; // to the last close, not the history reads after
  const latencies = done.flatMap((d) => d.latencies);
  const gaps: Record<string, number[]> = {};
  for (const d of done) for (const [k, xs] of Object.entries(d.gaps)) (gaps[k] ??= []).push(...xs);
  return {
    gaps, inFlight, total: latencies.length, calls: done.reduce((n, d) => n + d.calls, 0), secs, latencies,
    clientCpuMs: done.reduce((s, d) => s + d.cpuMs, 0), engineCpuMs: cpuMsOf(enginePid) - e0, natsCpuMs: cpuMsOf(natsPid) - n0,
    errors: done.reduce((s, d) => s + d.errors, 0), firstError: done.find((d) => d.firstError)?.firstError,
  };
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  const engine = await startEngineProcess(server.url, { AF_HTTP_PORT: '0', AF_ACCESS_KEYS: '', AF_ACCESS_KEYS_FILE: '' });
  const endpoint = engine.http;
  const clients: ClientProc[] = [];
  const cleanup = async () => {
    await Promise.all(clients.map((c) => c.stop().catch(() => undefined)));
    await engine.stop();
    await server.stop();
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { void cleanup().finally(() => process.exit(130)); });
  try {
    const admin = swfClient(endpoint);
    const domain = 'bench-http';
    await registerOrder(admin, domain);
    admin.destroy();
    for (let i = 0; i < CLIENTS; i++) clients.push(new ClientProc(i));
    await Promise.all(clients.map((c, i) => c.ask({ type: 'init', endpoint, domain, index: i })));
    const load0 = loadavg()[0]!;
    progress(`engine at ${endpoint}; ${CLIENTS} client processes ready; warming up (load average ${fmt(load0, 2)})`);
    await phase(clients, 'warmup', 40, 3, engine.pid, server.proc.pid!); // JIT, sockets, task-list feeds
    const rows: Phase[] = [];
    for (const inFlight of IN_FLIGHT) {
      progress(`${inFlight} in flight…`);
      // One in flight: the per-workflow floor (40 runs back to back); the others ROUNDS waves.
      rows.push(await phase(clients, `tp${inFlight}`, inFlight, inFlight === 1 ? 40 : ROUNDS, engine.pid, server.proc.pid!));
    }

    printTable(['in flight', 'workflows', 'secs', 'workflows/s', 'start→close p50 ms', 'p99 ms', 'calls/wf', 'engine CPU ms/wf', 'engine CPU ms/call', 'engine CPU %', 'nats CPU %', 'clients CPU %', 'errors'],
      rows.map((r) => [
        String(r.inFlight), String(r.total), fmt(r.secs, 2), fmt(r.total / r.secs), fmt(pct(r.latencies, 50)), fmt(pct(r.latencies, 99)),
        fmt(r.calls / r.total), fmt(r.engineCpuMs / r.total, 2), fmt(r.engineCpuMs / r.calls, 3),
        fmt((r.engineCpuMs / 10) / r.secs, 0), fmt((r.natsCpuMs / 10) / r.secs, 0), fmt((r.clientCpuMs / 10) / r.secs, 0), String(r.errors),
      ]));
    console.log('\nwhere a run\'s time goes (mean ms between history events, sampled runs; Started→Completed includes the client\'s round trips):');
    const kinds = [...new Set(rows.flatMap((r) => Object.keys(r.gaps)))];
    const mean = (xs: number[] | undefined) => (xs?.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
    for (const k of kinds) console.log(`  ${k.padEnd(52)} ${rows.map((r) => `${r.inFlight} in flight: ${fmt(mean(r.gaps[k])).padStart(7)}`).join('   ')}`);
    for (const r of rows) if (r.firstError) console.log(`errors at ${r.inFlight} in flight, first: ${r.firstError}`);
    const [low, high] = [rows.find((r) => r.inFlight === 50), rows.find((r) => r.inFlight === 200)];
    if (low && high) {
      const tp = (r: Phase) => r.total / r.secs;
      console.log(`\ntargets: throughput at 200 ≥ at 50: ${tp(high) >= tp(low) ? 'met' : 'MISSED'} (${fmt(tp(high))} vs ${fmt(tp(low))} wf/s); `
        + `p50 < 100 ms at 50 in flight: ${pct(low.latencies, 50) < 100 ? 'met' : 'MISSED'} (${fmt(pct(low.latencies, 50))} ms)`);
    }
    console.log(`setup: 1 engine process (src/serve.ts, HTTP gateway ${endpoint}), 1 nats-server, ${CLIENTS} client processes × `
      + `(${DECIDERS} deciders + ${WORKERS} workers + starters), @aws-sdk/client-swf over keep-alive HTTP; CPU % is of one core; `
      + `${cpus().length} cores shared by all; 1-min load average ${fmt(load0, 2)} before, ${fmt(loadavg()[0]!, 2)} after`);
  } finally {
    await cleanup();
  }
}

if (process.argv.includes('--client')) {
  void clientMain();
} else {
  main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
}
