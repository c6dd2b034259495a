/**
 * Long SWF histories: RUNS runs, each with SIGNALS signals of 32 KB (the largest signal input SWF
 * allows), on one engine process. Prints the engine's heap with the runs live, the time a
 * restarted process (SIGKILL, then a new one) takes to be ready, and its heap after rebuilding and
 * paging every run. `SIGNALS=24990 RUNS=3 npx tsx test/bench/history-memory.bench.ts` is the case
 * of issue 12 (2.4 GB of history).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { ENGINE_NODE_FLAGS } from '../../src/node-flags.js';
import { startNatsServer } from '../helpers/nats-server.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SIGNALS = Number(process.env.SIGNALS ?? 5000);
const PAYLOAD = 'x'.repeat(32_768);
const mb = (n: number) => (n / 1e6).toFixed(0);

function engine(url: string): Promise<{ proc: ChildProcess; readyMs: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [...ENGINE_NODE_FLAGS, '--expose-gc', '--import', 'tsx', 'src/serve.ts'], {
    env: { ...process.env, NATS_URL: url, AF_LOG_LEVEL: process.env.AF_LOG_LEVEL ?? 'warn', AF_SLEEP_AFTER_MS: '3600000', AF_NODE_NAME: 'bench', AF_HTTP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line.includes('rebuilt from history') || line.includes('streams and buckets ready') || line.includes('visibility index loaded')) console.error(line);
      if (d.toString().includes('"ready":true')) resolve({ proc, readyMs: performance.now() - t0 });
    });
    proc.once('exit', (c, s) => reject(new Error(`engine exited ${c ?? s}`)));
  });
}

async function heap(client: ActorFlowClient): Promise<number> {
  const m = await client.nc.request('af.node.bench.stats', new Uint8Array(), { timeout: 60_000 });
  return (JSON.parse(new TextDecoder().decode(m.data)) as { heapUsed: number }).heapUsed;
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  let { proc } = await engine(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const domain = 'long';
  await client.ensureDomain(domain);
  await client.call('RegisterWorkflowType', { domain, name: 'Long', version: '1', defaultTaskList: { name: 'd' }, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '86400', defaultTaskStartToCloseTimeout: '600' });
  const idle = await heap(client);
  const runs: { workflowId: string; runId: string }[] = [];
  for (let r = 0; r < RUNS; r++) {
    const workflowId = `long-${r}`;
    const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId, workflowType: { name: 'Long', version: '1' } });
    runs.push({ workflowId, runId });
  }
  const t0 = performance.now();
  await Promise.all(runs.map(async ({ workflowId }) => {
    let sent = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (sent < SIGNALS) { sent++; await client.call('SignalWorkflowExecution', { domain, workflowId, signalName: 's', input: PAYLOAD }); }
    }));
  }));
  const writeS = (performance.now() - t0) / 1000;
  const live = await heap(client);
  proc.kill('SIGKILL');
  await new Promise((r) => proc.once('exit', r));
  const restarted = await engine(server.url);
  proc = restarted.proc;
  const recovered = await heap(client);
  // Wake every run and page its whole history (the decider's and the console's reads).
  const t1 = performance.now();
  for (const execution of runs) {
    let nextPageToken: string | undefined;
    do {
      const p = await client.call<{ nextPageToken?: string }>('GetWorkflowExecutionHistory', { domain, execution, nextPageToken, maximumPageSize: 1000 });
      nextPageToken = p.nextPageToken;
    } while (nextPageToken);
  }
  const pageS = (performance.now() - t1) / 1000;
  const paged = await heap(client);
  const history = RUNS * SIGNALS * PAYLOAD.length;
  console.log(`| runs | signals/run | history MB | write s | heap idle MB | heap, runs live MB | restart ready s | heap after restart MB | page all s | heap after paging MB |`);
  console.log(`|---|---|---|---|---|---|---|---|---|---|`);
  console.log(`| ${RUNS} | ${SIGNALS} | ${mb(history)} | ${writeS.toFixed(1)} | ${mb(idle)} | ${mb(live)} | ${(restarted.readyMs / 1000).toFixed(1)} | ${mb(recovered)} | ${pageS.toFixed(1)} | ${mb(paged)} |`);
  await client.close();
  proc.kill('SIGKILL');
  await server.stop();
}

main().catch((e) => { console.error(e); process.exit(1); });
