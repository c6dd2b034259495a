import { readFileSync } from 'node:fs';
/**
 * `npx tsx test/bench/sfn-activity.bench.ts`: Step Functions executions of a 3-state machine
 * (Pass → activity Task → Succeed) through the NATS SDK against one engine node (its own process)
 * on a fresh nats-server, 200 in flight; prints a table. A script, not a test.
 */
import { spawn } from 'node:child_process';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { startNatsServer } from '../helpers/nats-server.js';

const TOTAL = Number(process.env.TOTAL ?? 2000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 200);
const WORKERS = Number(process.env.WORKERS ?? 64);

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };

/** CPU ms the process has used so far (utime + stime from /proc; Linux clock ticks are 10 ms). */
function cpuMsOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

let enginePid = 0;

async function startEngineProcess(url: string): Promise<() => Promise<void>> {
  const proc = spawn(process.execPath, [...(process.env.ENGINE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/serve.ts'], { env: { ...process.env, NATS_URL: url, AF_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  enginePid = proc.pid!;
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('"ready":true')) resolve(); });
    proc.once('exit', (c) => reject(new Error(`engine exited ${c}`)));
  });
  return () => new Promise((resolve) => { proc.once('exit', () => resolve()); proc.kill('SIGTERM'); });
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  const stopEngine = await startEngineProcess(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: 'bench-activity' });
  const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
    name: 'bench-3-states', roleArn: 'arn:aws:iam::000000000000:role/bench',
    definition: JSON.stringify({
      StartAt: 'Prepare',
      States: {
        Prepare: { Type: 'Pass', Result: { ready: true }, ResultPath: '$.prep', Next: 'Work' },
        Work: { Type: 'Task', Resource: activityArn, HeartbeatSeconds: 60, TimeoutSeconds: 300, Next: 'Done' },
        Done: { Type: 'Succeed' },
      },
    }),
  });
  const handled = new Map<number, () => void>();
  const worker = startSfnActivityWorker(client, {
    activityArn, workerName: 'bench', concurrency: WORKERS, pollTimeoutMs: 5000,
    handler: async (input) => {
      const { i } = input as { i: number };
      queueMicrotask(() => { handled.get(i)?.(); handled.delete(i); });
      return { i, ok: true };
    },
    onError: (e) => console.error('worker', e),
  });
  const arns: string[] = [];
  let next = 0;
  const t0 = performance.now();
  const cpu0 = cpuMsOf(enginePid);
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < TOTAL) {
      const i = next++;
      const seen = new Promise<void>((resolve) => handled.set(i, resolve));
      const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, name: `x-${i}`, input: JSON.stringify({ i }) });
      arns.push(executionArn);
      await seen;
    }
  }));
  // Every execution closed: read their start and stop dates (the engine's own timestamps).
  const descs: { status: string; startDate: number; stopDate?: number }[] = [];
  for (;;) {
    descs.length = 0;
    for (let k = 0; k < arns.length; k += 100) {
      descs.push(...await Promise.all(arns.slice(k, k + 100).map((executionArn) => client.call<{ status: string; startDate: number; stopDate?: number }>('DescribeExecution', { executionArn }))));
    }
    if (descs.every((d) => d.status !== 'RUNNING')) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const lastStop = Math.max(...descs.map((d) => d.stopDate!));
  const firstStart = Math.min(...descs.map((d) => d.startDate));
  const wall = lastStop - firstStart;
  const lat = descs.map((d) => (d.stopDate! - d.startDate) * 1000);
  const succeeded = descs.filter((d) => d.status === 'SUCCEEDED').length;
  await worker.stop();
  const engineCpuMs = cpuMsOf(enginePid) - cpu0;
  await client.close();
  await stopEngine();
  await server.stop();
  const rows = [
    ['executions', String(TOTAL)],
    ['in flight', String(IN_FLIGHT)],
    ['worker slots', String(WORKERS)],
    ['succeeded', String(succeeded)],
    ['executions/s', (TOTAL / wall).toFixed(1)],
    ['start-to-close p50 (ms)', pct(lat, 50).toFixed(1)],
    ['start-to-close p99 (ms)', pct(lat, 99).toFixed(1)],
    ['engine CPU per execution (ms)', (engineCpuMs / TOTAL).toFixed(2)],
    ['client wall time (s)', ((performance.now() - t0) / 1000).toFixed(1)],
  ];
  console.log('\nStep Functions: Pass → activity Task → Succeed over the NATS SDK');
  for (const [k, v] of rows) console.log(`${k!.padEnd(26)} ${v}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
