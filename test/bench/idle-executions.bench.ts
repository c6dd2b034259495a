/**
 * Many open executions on one node: N workflows each waiting on an activity with a one-hour
 * timeout (no worker). Prints start rate, heap per open execution once they sleep, and the time a
 * restarted node takes to rebuild them (SIGKILL, then a new process). `N=100000 npx tsx test/bench/idle-executions.bench.ts`
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { ENGINE_NODE_FLAGS } from '../../src/node-flags.js';
import { Decider } from '../../src/sdk/decider.js';
import { startNatsServer } from '../helpers/nats-server.js';

const N = Number(process.env.N ?? 100_000);
const fmt = (n: number, d = 0) => n.toFixed(d);

function engine(url: string): Promise<{ proc: ChildProcess; readyMs: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [...ENGINE_NODE_FLAGS, '--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', 'src/serve.ts'], {
    env: { ...process.env, NATS_URL: url, AF_LOG_LEVEL: process.env.AF_LOG_LEVEL ?? 'warn', AF_SLEEP_AFTER_MS: '1000', AF_NODE_NAME: 'bench' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      const text = d.toString();
      for (const line of text.split('\n')) if (line.includes('rebuilt from history')) console.error(line);
      if (text.includes('"ready":true')) resolve({ proc, readyMs: performance.now() - t0 });
    });
    proc.once('exit', (c) => reject(new Error(`engine exited ${c}`)));
  });
}

async function stats(client: ActorFlowClient): Promise<{ heapUsed: number; rss: number; liveRuns: number; sleepingRuns: number }> {
  const m = await client.nc.request('af.node.bench.stats', new Uint8Array(), { timeout: 30_000 });
  return JSON.parse(new TextDecoder().decode(m.data));
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  let { proc } = await engine(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const domain = 'idle';
  await client.ensureDomain(domain);
  await client.call('RegisterWorkflowType', { domain, name: 'Wait', version: '1', defaultTaskList: { name: 'd' }, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '86400', defaultTaskStartToCloseTimeout: '60' });
  await client.call('RegisterActivityType', { domain, name: 'Slow', version: '1', defaultTaskList: { name: 'nobody' }, defaultTaskScheduleToStartTimeout: '3600', defaultTaskStartToCloseTimeout: '3600', defaultTaskScheduleToCloseTimeout: '7200', defaultTaskHeartbeatTimeout: 'NONE' });
  const before = await stats(client);
  let waiting = 0;
  const decider = new Decider(client, { domain, taskList: 'd', concurrency: 64, pollTimeoutMs: 5000, onResponded: () => { waiting++; } }, (task) => ({
    decisions: [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: { name: 'Slow', version: '1' }, activityId: 'a1' } }],
  })).start();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 128 }, async () => {
    while (next < N) await client.call('StartWorkflowExecution', { domain, workflowId: `w${next++}`, workflowType: { name: 'Wait', version: '1' } });
  }));
  const startSecs = (performance.now() - t0) / 1000;
  while (waiting < N) await new Promise((r) => setTimeout(r, 100));
  const readySecs = (performance.now() - t0) / 1000;
  await decider.stop();
  // Let every run fall asleep (AF_SLEEP_AFTER_MS=1000), then measure.
  let s = await stats(client);
  for (let i = 0; i < 60 && s.liveRuns > 0; i++) { await new Promise((r) => setTimeout(r, 500)); s = await stats(client); }
  const perRun = (s.heapUsed - before.heapUsed) / N;
  // Crash and rebuild.
  proc.kill('SIGKILL');
  await new Promise((r) => proc.once('exit', r));
  const restarted = await engine(server.url);
  proc = restarted.proc;
  const after = await stats(client);
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  await client.close();
  await server.stop();
  console.log('| measure | value |\n|---|---|');
  console.log(`| open executions, each waiting on an activity (1 h timeouts) | ${N} |`);
  console.log(`| StartWorkflowExecution rate (128 starters) | ${fmt(N / startSecs)} /s |`);
  console.log(`| executions set up (started + activity scheduled) per second | ${fmt(N / readySecs)} /s |`);
  console.log(`| heap used before / with all open executions asleep | ${fmt(before.heapUsed / 2 ** 20)} MB / ${fmt(s.heapUsed / 2 ** 20)} MB (rss ${fmt(s.rss / 2 ** 20)} MB) |`);
  console.log(`| heap per open idle execution | ${fmt(perRun)} bytes → 1,000,000 ≈ ${fmt((perRun * 1e6) / 2 ** 20)} MB |`);
  console.log(`| live / sleeping runs | ${s.liveRuns} / ${s.sleepingRuns} |`);
  console.log(`| restart after SIGKILL: process start to serving, all ${N} rebuilt | ${fmt(restarted.readyMs)} ms (${after.sleepingRuns + after.liveRuns} runs back) |`);
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
