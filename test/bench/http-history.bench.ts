/**
 * `npx tsx test/bench/http-history.bench.ts`: GetWorkflowExecutionHistory of one long run through the
 * AWS JSON 1.0 HTTP gateway with @aws-sdk/client-swf, against one engine node (its own process) on a
 * fresh nats-server. A script, not a test.
 *
 * One run takes SIGNALS signals (default 999, so about 1,000 events); then, for each page size,
 * CALLS calls (default 400) with CONCURRENCY (default 8) in flight read the first page. Prints the
 * engine's CPU per call and the call's p50 and p99: the cost of a history page over HTTP, which a
 * decider's PollForDecisionTask pays again for every decision task of a long run.
 */
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import {
  GetWorkflowExecutionHistoryCommand, SignalWorkflowExecutionCommand, StartWorkflowExecutionCommand, SWFClient,
} from '@aws-sdk/client-swf';
import { startNatsServer } from '../helpers/nats-server.js';
import { DECISIONS, ORDER_TYPE, registerOrder } from '../helpers/swf-sdk-order.js';
import { cpuMsOf, fmt, pct, printTable, startEngineProcess } from './bench-kit.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const SIGNALS = Number(process.env.SIGNALS ?? 999);
const CALLS = Number(process.env.CALLS ?? 400);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const PAGE_SIZES = [100, 1000];

async function main(): Promise<void> {
  const server = await startNatsServer();
  const engine = await startEngineProcess(server.url, { AF_ACCESS_KEYS: '', AF_ACCESS_KEYS_FILE: '' });
  const swf = new SWFClient({
    endpoint: engine.http, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' },
    requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }) },
  });
  try {
    const domain = 'bench-history';
    await registerOrder(swf, domain);
    const workflowId = 'long-run';
    const { runId } = await swf.send(new StartWorkflowExecutionCommand({
      domain, workflowId, workflowType: ORDER_TYPE, taskList: { name: DECISIONS }, input: '{"orderId":1}',
    }));
    const execution = { workflowId, runId: runId! };
    let sent = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (sent < SIGNALS) {
        const n = sent++;
        await swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId, runId, signalName: 'tick', input: JSON.stringify({ n, note: 'a signal of a long run' }) }));
      }
    }));
    const rows: string[][] = [];
    for (const maximumPageSize of PAGE_SIZES) {
      const read = () => swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize }));
      const events = (await read()).events?.length ?? 0;
      for (let i = 0; i < 20; i++) await read();
      const lat: number[] = [];
      let next = 0;
      const cpu0 = cpuMsOf(engine.pid);
      const t0 = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < CALLS) {
          const t = performance.now();
          await read();
          lat.push(performance.now() - t);
        }
      }));
      const secs = (performance.now() - t0) / 1000;
      const cpu = cpuMsOf(engine.pid) - cpu0;
      rows.push([String(maximumPageSize), String(events), String(CALLS), fmt(CALLS / secs), fmt(pct(lat, 50), 2), fmt(pct(lat, 99), 2), fmt(cpu / CALLS, 3)]);
    }
    printTable(['page size', 'events a page', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'engine CPU ms/call'], rows);
    console.log(`setup: 1 engine process, 1 nats-server, this driver (${CONCURRENCY} calls in flight); one run of ${SIGNALS + 2} events; `
      + `1-min load average ${fmt(loadavg()[0]!, 2)}`);
  } finally {
    swf.destroy();
    await engine.stop();
    await server.stop();
  }
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
