/**
 * `npm run bench:sfn-express`: EXPRESS StartSyncExecution of a 5-state Pass/Choice machine against
 * the STANDARD figure (StartExecution, then DescribeExecution until SUCCEEDED) of the same machine,
 * in one run against one engine node (its own process) on a fresh nats-server, at a few
 * concurrencies; prints executions per second, latencies, JetStream appends and engine CPU per
 * execution, and the express ÷ standard ratio. A script, not a test.
 * TOTAL (default 2000 per phase), CONCURRENCY (default "1,16,64").
 */
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { FIVE_STATES } from '../fixtures/sfn-five-states.js';
import { appendsSoFar, CpuMeter, fmt, pct, printTable, startEngineProcess } from './bench-kit.js';

const TOTAL = Number(process.env.TOTAL ?? 2000);
const CONCURRENCY = (process.env.CONCURRENCY ?? '1,16,64').split(',').map(Number);
const ROLE = 'arn:aws:iam::000000000000:role/bench';

const DEFINITION = JSON.stringify(FIVE_STATES);

interface Phase { rate: number; p50: number; p99: number; succeeded: number; appends: number; engineCpu: number }

/** Runs `one(i)` TOTAL times, `inFlight` at once; `one` answers whether the execution succeeded. */
async function measure(server: NatsServerHandle, cpu: CpuMeter, inFlight: number, one: (i: number) => Promise<boolean>): Promise<Phase> {
  const appends0 = await appendsSoFar(server.url);
  cpu.mark();
  const lat: number[] = [];
  let next = 0;
  let succeeded = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < TOTAL) {
      const i = next++;
      const t = performance.now();
      if (await one(i)) succeeded++;
      lat.push(performance.now() - t);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  return {
    rate: TOTAL / secs, p50: pct(lat, 50), p99: pct(lat, 99), succeeded,
    appends: ((await appendsSoFar(server.url)) - appends0) / TOTAL, engineCpu: cpu.spent().engine / TOTAL,
  };
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  const engine = await startEngineProcess(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const cpu = new CpuMeter(engine.pid, server.proc.pid!);
  const create = async (name: string, type: string) =>
    (await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name, roleArn: ROLE, definition: DEFINITION, type })).stateMachineArn;
  const standard = await create('bench-standard', 'STANDARD');
  const express = await create('bench-express', 'EXPRESS');
  const rows: string[][] = [];
  let run = 0;
  for (const c of CONCURRENCY) {
    run++;
    const std = await measure(server, cpu, c, async (i) => {
      const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn: standard, name: `r${run}-${i}`, input: JSON.stringify({ n: i % 20 }) });
      for (;;) {
        const d = await client.call<{ status: string }>('DescribeExecution', { executionArn });
        if (d.status !== 'RUNNING') return d.status === 'SUCCEEDED';
      }
    });
    const exp = await measure(server, cpu, c, async (i) => {
      const r = await client.call<{ status: string }>('StartSyncExecution', { stateMachineArn: express, input: JSON.stringify({ n: i % 20 }) });
      return r.status === 'SUCCEEDED';
    });
    for (const [kind, p] of [['STANDARD (start + describe)', std], ['EXPRESS (StartSyncExecution)', exp]] as const) {
      rows.push([String(c), kind, `${p.succeeded}/${TOTAL}`, fmt(p.rate, 0), fmt(p.p50, 2), fmt(p.p99, 2), fmt(p.appends, 1), fmt(p.engineCpu, 3),
        kind.startsWith('EXPRESS') ? `${fmt(exp.rate / std.rate, 2)}×` : '']);
    }
  }
  await client.close();
  await engine.stop();
  await server.stop();
  console.log(`\n5-state Pass/Choice machine, ${TOTAL} executions per row, one engine node, NATS API`);
  printTable(['in flight', 'type', 'succeeded', 'exec/s', 'p50 ms', 'p99 ms', 'JetStream appends/exec', 'engine CPU ms/exec', 'express ÷ standard'], rows);
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
