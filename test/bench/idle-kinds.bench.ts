/**
 * Open executions of both kinds asleep on one node, in one run: N SWF runs and N Step Functions
 * executions, each waiting on an activity nobody polls (1 h timeouts). Prints the heap per open
 * execution of each kind once all are asleep, their ratio, and the time a SIGKILLed engine process
 * takes to rebuild REBUILD_N Step Functions executions (process start to serving).
 *
 * `N=100000 REBUILD_N=10000 npx tsx test/bench/idle-kinds.bench.ts`
 */
import { ActorFlowClient } from '../../src/sdk/client.js';
import { Decider } from '../../src/sdk/decider.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { startNatsServer } from '../helpers/nats-server.js';

const N = Number(process.env.N ?? 100_000);
const REBUILD_N = Number(process.env.REBUILD_N ?? 10_000);
const NODE = 'bench';
const STARTERS = 128;
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const ROLE = 'arn:aws:iam::000000000000:role/bench';

interface Stats { heapUsed: number; rss: number; liveRuns: number; sleepingRuns: number; sfnLive: number; sfnSleeping: number }
const stats = async (client: ActorFlowClient): Promise<Stats> =>
  JSON.parse(new TextDecoder().decode((await client.nc.request(`af.node.${NODE}.stats`, new Uint8Array(), { timeout: 60_000 })).data));

const engine = (url: string, log = 'warn', profile = false) => spawnEngine(url, { AF_SLEEP_AFTER_MS: '1000', AF_NODE_NAME: NODE, AF_LOG_LEVEL: log },
  { nodeArgs: ['--expose-gc', '--max-old-space-size=4096', ...(profile && process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [])] });

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function inParallel(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: STARTERS }, async () => { while (next < n) await fn(next++); }));
  return (performance.now() - t0) / 1000;
}

/** A state machine with one Task on an activity nobody polls. */
async function sfnMachine(client: ActorFlowClient, name: string): Promise<string> {
  const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: `${name}-act` });
  const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
    name, roleArn: ROLE, definition: JSON.stringify({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, TimeoutSeconds: 3600, End: true } } }),
  });
  return stateMachineArn;
}

const startSfn = (client: ActorFlowClient, stateMachineArn: string, n: number) =>
  inParallel(n, (i) => client.call('StartExecution', { stateMachineArn, name: `x${i}`, input: JSON.stringify({ i }) }));

async function startSwf(client: ActorFlowClient, n: number): Promise<number> {
  const domain = 'idle';
  await client.ensureDomain(domain);
  await client.call('RegisterWorkflowType', { domain, name: 'Wait', version: '1', defaultTaskList: { name: 'd' }, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '86400', defaultTaskStartToCloseTimeout: '60' });
  await client.call('RegisterActivityType', { domain, name: 'Slow', version: '1', defaultTaskList: { name: 'nobody' }, defaultTaskScheduleToStartTimeout: '3600', defaultTaskStartToCloseTimeout: '3600', defaultTaskScheduleToCloseTimeout: '7200', defaultTaskHeartbeatTimeout: 'NONE' });
  let waiting = 0;
  const decider = new Decider(client, { domain, taskList: 'd', concurrency: 64, pollTimeoutMs: 5000, onResponded: () => { waiting++; } }, () => ({
    decisions: [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: { name: 'Slow', version: '1' }, activityId: 'a1' } }],
  })).start();
  const secs = await inParallel(n, (i) => client.call('StartWorkflowExecution', { domain, workflowId: `w${i}`, workflowType: { name: 'Wait', version: '1' } }));
  await until(async () => waiting >= n, 'every decision answered');
  await decider.stop();
  return secs;
}

async function allAsleep(client: ActorFlowClient, swf: number, sfn: number): Promise<Stats> {
  let s = await stats(client);
  await until(async () => { s = await stats(client); return s.liveRuns === 0 && s.sfnLive === 0 && s.sleepingRuns === swf && s.sfnSleeping === sfn; }, 'every execution asleep');
  return s;
}

async function rebuildPhase(): Promise<{ startSecs: number; rebuildMs: number; back: number }> {
  const server = await startNatsServer();
  let e: EngineProcess | undefined = await engine(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  try {
    const sm = await sfnMachine(client, 'rebuild');
    const startSecs = await startSfn(client, sm, REBUILD_N);
    await allAsleep(client, 0, REBUILD_N);
    e.kill('SIGKILL');
    await e.exited;
    e = await engine(server.url, 'info', true);
    for (const line of e.output().split('\n')) if (line.includes('recovery') || line.includes('rebuilt from history') || line.includes('engine node started')) console.error(line.slice(0, 300));
    const s = await stats(client);
    return { startSecs, rebuildMs: e.readyAt - e.spawnedAt, back: s.sfnLive + s.sfnSleeping };
  } finally {
    await client.close();
    await e?.stop();
    await server.stop();
  }
}

async function heapPhase(): Promise<{ base: Stats; swf: Stats; sfn: Stats; swfSecs: number; sfnSecs: number }> {
  const server = await startNatsServer();
  const e = await engine(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  try {
    const sm = await sfnMachine(client, 'heap');
    const base = await stats(client);
    const swfSecs = await startSwf(client, N);
    const swf = await allAsleep(client, N, 0);
    const sfnSecs = await startSfn(client, sm, N);
    const sfn = await allAsleep(client, N, N);
    return { base, swf, sfn, swfSecs, sfnSecs };
  } finally {
    await client.close();
    await e.stop();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const r = await rebuildPhase();
  const h = await heapPhase();
  const perSwf = (h.swf.heapUsed - h.base.heapUsed) / N;
  const perSfn = (h.sfn.heapUsed - h.swf.heapUsed) / N;
  console.log('| measure | SWF | Step Functions |\n|---|---|---|');
  console.log(`| open executions asleep, each waiting on an activity | ${fmt(N)} | ${fmt(N)} |`);
  console.log(`| start rate (${STARTERS} starters over NATS) | ${fmt(N / h.swfSecs)} /s | ${fmt(N / h.sfnSecs)} /s |`);
  console.log(`| heap per open execution asleep | ${fmt(perSwf)} bytes | ${fmt(perSfn)} bytes (${fmt(perSfn / perSwf, 2)}× SWF) |`);
  console.log(`| heap with all asleep (base ${fmt(h.base.heapUsed / 2 ** 20)} MB) | ${fmt(h.swf.heapUsed / 2 ** 20)} MB | ${fmt(h.sfn.heapUsed / 2 ** 20)} MB (rss ${fmt(h.sfn.rss / 2 ** 20)} MB) |`);
  console.log(`| restart after SIGKILL with ${fmt(REBUILD_N)} open: process start to serving | – | ${fmt(r.rebuildMs)} ms (${fmt(r.back)} back) |`);
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
