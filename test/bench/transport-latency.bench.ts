/**
 * `npm run bench:transports`: the same SWF order-workflow driver, once through the AWS JSON 1.0 HTTP
 * gateway with @aws-sdk/client-swf and once through the NATS SDK, against one engine node (its own
 * process) on a fresh nats-server. The driver's load is the held-out driver's: 4 deciders, 4
 * activity workers and 50 executions in flight. A script, not a test.
 *
 * Prints, per transport: the per-call latency (p50, p99) of the calls that do work (Start,
 * RespondDecisionTaskCompleted, RespondActivityTaskCompleted; polls wait by design and are left
 * out), the engine's CPU per call (polls included) and per workflow, and the HTTP ÷ NATS ratios.
 * Each transport runs ROUNDS times (default 2), alternating, so drift on a shared machine hits both.
 *
 * Knobs (env): IN_FLIGHT (50), DECIDERS (4), WORKERS (4), WORKFLOWS per round (400), ROUNDS (2), and
 * ENGINE_NODE_ARGS: flags for the engine's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import {
  PollForActivityTaskCommand, PollForDecisionTaskCommand, RespondActivityTaskCompletedCommand, RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand, SWFClient, type HistoryEvent,
} from '@aws-sdk/client-swf';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { spawnEngine } from '../helpers/engine-process.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { ACTIVITIES, DECISIONS, decideOrder, ORDER_TYPE, registerOrder } from '../helpers/swf-sdk-order.js';
import { CpuMeter, fmt, pct, printTable } from './bench-kit.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 50);
const DECIDERS = Number(process.env.DECIDERS ?? 4);
const WORKERS = Number(process.env.WORKERS ?? 4);
const WORKFLOWS = Number(process.env.WORKFLOWS ?? 400);
const ROUNDS = Number(process.env.ROUNDS ?? 2);

type Action = 'StartWorkflowExecution' | 'PollForDecisionTask' | 'RespondDecisionTaskCompleted' | 'PollForActivityTask' | 'RespondActivityTaskCompleted';
const WORK: readonly Action[] = ['StartWorkflowExecution', 'RespondDecisionTaskCompleted', 'RespondActivityTaskCompleted'];

/** One SWF call over one transport; the driver sees no other difference. */
type Call = (action: Action, input: Record<string, unknown>, signal?: AbortSignal) => Promise<Record<string, any>>;

function httpTransport(endpoint: string): { call: Call; close(): void } {
  const swf = new SWFClient({
    endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' },
    requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 256 }) },
  });
  const commands = {
    StartWorkflowExecution: StartWorkflowExecutionCommand, PollForDecisionTask: PollForDecisionTaskCommand,
    RespondDecisionTaskCompleted: RespondDecisionTaskCompletedCommand, PollForActivityTask: PollForActivityTaskCommand,
    RespondActivityTaskCompleted: RespondActivityTaskCompletedCommand,
  } as const;
  return {
    call: (action, input, signal) => swf.send(new (commands[action] as any)(input), { abortSignal: signal }) as Promise<Record<string, any>>,
    close: () => swf.destroy(),
  };
}

async function natsTransport(url: string): Promise<{ call: Call; close(): Promise<void> }> {
  const client = await ActorFlowClient.connect({ servers: url });
  return {
    call: (action, input) => client.call(action, input, action.startsWith('Poll') ? { timeoutMs: 10_000 } : undefined),
    close: () => client.close(),
  };
}

interface Round { latency: Map<Action, number[]>; calls: number; workflows: number; secs: number; engineCpuMs: number; natsCpuMs: number; driverCpuMs: number }

/** One round of the driver: DECIDERS + WORKERS pollers, IN_FLIGHT starters, WORKFLOWS workflows. */
async function drive(call: Call, domain: string, tag: string, cpu: CpuMeter): Promise<Round> {
  const latency = new Map<Action, number[]>(WORK.map((a) => [a, []]));
  let calls = 0;
  const timed = async (action: Action, input: Record<string, unknown>, signal?: AbortSignal) => {
    calls++;
    const t = performance.now();
    const out = await call(action, input, signal);
    latency.get(action)?.push(performance.now() - t);
    return out;
  };
  const waiting = new Map<string, () => void>();
  let stopping = false;
  const stop = new AbortController();
  const pollTail = (e: unknown): Record<string, any> => { if (!stopping) throw e; return {}; };
  const decider = async () => {
    while (!stopping) {
      const task = await timed('PollForDecisionTask', { domain, taskList: { name: DECISIONS }, identity: 'bench' }, stop.signal).catch(pollTail);
      if (!task.taskToken) continue;
      const decisions = decideOrder(task.events as HistoryEvent[]);
      await timed('RespondDecisionTaskCompleted', { taskToken: task.taskToken, decisions });
      if (decisions[0]?.decisionType === 'CompleteWorkflowExecution') waiting.get(task.workflowExecution.workflowId)?.();
    }
  };
  const worker = async () => {
    while (!stopping) {
      const task = await timed('PollForActivityTask', { domain, taskList: { name: ACTIVITIES }, identity: 'bench' }, stop.signal).catch(pollTail);
      if (!task.taskToken) continue;
      await timed('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: `{"${task.activityType.name}":"ok"}` });
    }
  };
  const pollers = [...Array.from({ length: DECIDERS }, decider), ...Array.from({ length: WORKERS }, worker)];
  cpu.mark();
  const calls0 = calls;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < WORKFLOWS) {
      const workflowId = `${tag}-${next++}`;
      const closed = new Promise<void>((resolve) => waiting.set(workflowId, resolve));
      await timed('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_TYPE, taskList: { name: DECISIONS }, input: '{"orderId":1}' });
      await closed;
      waiting.delete(workflowId);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  const spent = cpu.spent();
  const round = { latency, calls: calls - calls0, workflows: WORKFLOWS, secs, engineCpuMs: spent.engine, natsCpuMs: spent.nats, driverCpuMs: spent.clients };
  // Idle pollers end with their long poll: HTTP ones by abort, NATS ones when the poll runs out.
  stopping = true;
  stop.abort();
  await Promise.race([Promise.all(pollers), new Promise((r) => setTimeout(r, 5000))]);
  return round;
}

function merge(rounds: Round[]): Round {
  const latency = new Map<Action, number[]>(WORK.map((a) => [a, rounds.flatMap((r) => r.latency.get(a) ?? [])]));
  const sum = (k: 'calls' | 'workflows' | 'secs' | 'engineCpuMs' | 'natsCpuMs' | 'driverCpuMs') => rounds.reduce((s, r) => s + r[k], 0);
  return { latency, calls: sum('calls'), workflows: sum('workflows'), secs: sum('secs'), engineCpuMs: sum('engineCpuMs'), natsCpuMs: sum('natsCpuMs'), driverCpuMs: sum('driverCpuMs') };
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  const engine = await spawnEngine(server.url, { AF_HTTP_PORT: '0', AF_ACCESS_KEYS: '', AF_ACCESS_KEYS_FILE: '', AF_LOG_LEVEL: 'warn', AF_POLL_HOLD_MS: '2000' },
    { nodeArgs: process.env.ENGINE_NODE_ARGS?.split(' ').filter(Boolean) });
  const http = httpTransport(engine.http);
  const nats = await natsTransport(server.url);
  const cpu = new CpuMeter(engine.pid, server.proc.pid!);
  try {
    const domain = 'bench-transports';
    const admin = new SWFClient({ endpoint: engine.http, region: 'us-east-1', credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' } });
    await registerOrder(admin, domain);
    admin.destroy();
    const load0 = loadavg()[0]!;
    process.stderr.write(`bench: warming up both transports (load average ${fmt(load0, 2)})\n`);
    await drive(http.call, domain, 'warm-http', cpu);
    await drive(nats.call, domain, 'warm-nats', cpu);
    const runs: Record<'HTTP' | 'NATS', Round[]> = { HTTP: [], NATS: [] };
    for (let i = 0; i < ROUNDS; i++) {
      process.stderr.write(`bench: round ${i + 1} of ${ROUNDS}\n`);
      runs.HTTP.push(await drive(http.call, domain, `http-${i}`, cpu));
      runs.NATS.push(await drive(nats.call, domain, `nats-${i}`, cpu));
    }
    const all = { HTTP: merge(runs.HTTP), NATS: merge(runs.NATS) };
    const workP50 = (r: Round) => pct(WORK.flatMap((a) => r.latency.get(a)!), 50);
    printTable(['transport', 'workflows', 'wf/s', ...WORK.map((a) => `${a} p50 ms`), 'work calls p50 ms', 'p99 ms', 'calls/wf', 'engine CPU ms/call', 'engine CPU ms/wf', 'nats-server CPU ms/call', 'driver CPU ms/call'],
      (['HTTP', 'NATS'] as const).map((t) => {
        const r = all[t];
        return [t, String(r.workflows), fmt(r.workflows / r.secs), ...WORK.map((a) => fmt(pct(r.latency.get(a)!, 50), 2)), fmt(workP50(r), 2),
          fmt(pct(WORK.flatMap((a) => r.latency.get(a)!), 99), 2), fmt(r.calls / r.workflows), fmt(r.engineCpuMs / r.calls, 3), fmt(r.engineCpuMs / r.workflows, 2),
          fmt(r.natsCpuMs / r.calls, 3), fmt(r.driverCpuMs / r.calls, 3)];
      }));
    console.log(`\nHTTP ÷ NATS: work-call p50 ${fmt(workP50(all.HTTP) / workP50(all.NATS), 2)}×, engine CPU per call `
      + `${fmt((all.HTTP.engineCpuMs / all.HTTP.calls) / (all.NATS.engineCpuMs / all.NATS.calls), 2)}× (target: p50 within 2×)`);
    console.log(`setup: 1 engine process, 1 nats-server, this driver process (${DECIDERS} deciders, ${WORKERS} workers, ${IN_FLIGHT} in flight, `
      + `${WORKFLOWS} workflows × ${ROUNDS} rounds per transport); 1-min load average ${fmt(load0, 2)} before, ${fmt(loadavg()[0]!, 2)} after`);
  } finally {
    http.close();
    await nats.close();
    await engine.stop();
    await server.stop();
  }
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
