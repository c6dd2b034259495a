/**
 * `npm run bench`: order-fulfilment workflows through the NATS SDK against one engine node (its own
 * process) on a fresh nats-server, once with each durability setting (default, then fsync:
 * `sync_interval: always`); prints one table with both and what fsync costs. A script, not a test.
 */
import { ActorFlowClient, attributesOf } from '../../src/sdk/client.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import type { Durability } from '../../src/nats/durability.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { appendsSoFar, ceiling, countRequests, CpuMeter, engineGcMs, fmt, pct, printTable, rawRates, startEngineProcess, type RawRates } from './bench-kit.js';

/** One run of every scenario on a fresh nats-server of this durability; its table rows and raw append rates. */
async function benchOnce(durability: Durability): Promise<{ rows: string[][]; cost: string[][]; raw: RawRates }> {
  const server = await startNatsServer({ durability });
  const raw = await rawRates(server.url);
  const engine = await startEngineProcess(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const requests = countRequests(client);
  const cpu = new CpuMeter(engine.pid, server.proc.pid!);
  const cost: string[][] = [];
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
    const appends0 = await appendsSoFar(server.url);
    const requests0 = requests.count();
    cpu.mark();
    const gc0 = await engineGcMs(engine.http);
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
    const spent = cpu.spent();
    const gc1 = await engineGcMs(engine.http);
    // Counted from this phase: what one workflow costs the store and the messaging layer.
    const appendsPer = ((await appendsSoFar(server.url)) - appends0) / total;
    const requestsPer = (requests.count() - requests0) / total;
    const top = ceiling(raw, appendsPer, requestsPer);
    rows.push([durability, `order workflows, ${inFlight} in flight`, String(inFlight), String(total), fmt(total / secs), fmt(pct(lat, 50)), fmt(pct(lat, 99)), '-', '-']);
    cost.push([durability, String(inFlight), fmt(total / secs), fmt(appendsPer), fmt(requestsPer), `${fmt(top.perSec, 0)} (${top.bound})`,
      `${fmt((100 * total) / secs / top.perSec, 0)} %`, fmt(spent.engine / total, 2), `${fmt((gc1.minor - gc0.minor) / total, 2)} / ${fmt((gc1.other - gc0.other) / total, 2)}`,
      fmt(spent.nats / total, 2), fmt(spent.clients / total, 2)]);
  }
  await participants.stop();
  await client.close();
  await engine.stop();
  await server.stop();
  return { rows, cost, raw };
}

/** Both durability settings in one run (AF_DURABILITY, src/nats/durability.ts), then what fsync costs. */
async function main(): Promise<void> {
  const runs = { default: await benchOnce('default'), fsync: await benchOnce('fsync') };
  printTable(['durability', 'scenario', 'in flight', 'workflows', 'completed wf/s', 'start→close p50 ms', 'p99 ms', 'dispatch p50 ms', 'dispatch p99 ms'],
    [...runs.default.rows, ...runs.fsync.rows]);
  console.log('');
  console.log('Against the ceiling measured in the same run (the lower of appends/s ÷ appends per workflow and requests/s ÷ requests per workflow):');
  printTable(['durability', 'in flight', 'wf/s', 'appends/wf', 'requests/wf', 'ceiling wf/s', 'of ceiling', 'engine CPU ms/wf', 'engine GC pause ms/wf (minor / other)', 'nats-server CPU ms/wf', 'clients CPU ms/wf'],
    [...runs.default.cost, ...runs.fsync.cost]);
  console.log('');
  for (const d of ['default', 'fsync'] as const) {
    const r = runs[d].raw;
    console.log(`raw rates, ${d}: JetStream R1 appends ${fmt(r.appendsSeq, 0)}/s one at a time, ${fmt(r.appendsPar, 0)}/s with 64 in flight; core request/reply ${fmt(r.requests, 0)}/s with 16 requesters`);
  }
  // fsync's cost as default ÷ fsync: throughput for the loaded rows, start→close p50 for the single workflow.
  const ratio = (a: string, b: string) => fmt(Number(a) / Number(b), 2);
  console.log(`fsync cost (default ÷ fsync): raw appends ${fmt(runs.default.raw.appendsSeq / runs.fsync.raw.appendsSeq, 2)}× one at a time, ${fmt(runs.default.raw.appendsPar / runs.fsync.raw.appendsPar, 2)}× with 64 in flight`);
  runs.default.rows.forEach((r, i) => {
    const f = runs.fsync.rows[i]!;
    console.log(r[4] === '-'
      ? `  ${r[1]}: start→close p50 ${r[5]} ms → ${f[5]} ms (fsync ${ratio(f[5]!, r[5]!)}× slower)`
      : `  ${r[1]}: ${r[4]} → ${f[4]} wf/s (default ${ratio(r[4]!, f[4]!)}× faster)`);
  });
  console.log('engine: one node in its own process; clients (48 deciders, 48 workers, starters) in this process; 2 cores shared with nats-server');
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
