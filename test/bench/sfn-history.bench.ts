/**
 * `npx tsx test/bench/sfn-history.bench.ts`: reading the history of one long Step Functions execution
 * page by page with GetExecutionHistory (@aws-sdk/client-sfn over HTTP), against one engine node (its
 * own process) on a fresh nats-server. A script, not a test.
 *
 * One STANDARD execution of a Map over ITEMS Pass items (default 3,000, about 3 events an item) with
 * PAYLOAD bytes (default 40) in each item; then every page of its history is read, MAX_RESULTS
 * (default 100) events a page, forward and then in reverse. Prints per direction the pages, the
 * engine CPU per page and the slowest page, and the engine's peak heap while reading.
 */
import { CreateStateMachineCommand, DescribeExecutionCommand, GetExecutionHistoryCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { startNatsServer } from '../helpers/nats-server.js';
import { SFN_ROLE, sfnClient } from '../helpers/sfn-http.js';
import { scrapeMetrics } from '../helpers/prom.js';
import { cpuMsOf, fmt, printTable, startEngineProcess } from './bench-kit.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ITEMS = Number(process.env.ITEMS ?? 3000);
const PAYLOAD = Number(process.env.PAYLOAD ?? 40);
const MAX_RESULTS = Number(process.env.MAX_RESULTS ?? 100);

async function main(): Promise<void> {
  const nats = await startNatsServer();
  const engine = await startEngineProcess(nats.url, { AF_ACCESS_KEYS: '', AF_ACCESS_KEYS_FILE: '' });
  const sfn = sfnClient(Number(new URL(engine.http).port));
  const heapUsed = async () => (await scrapeMetrics(engine.http)).find((s) => s.name === 'nodejs_heap_size_used_bytes')?.value ?? NaN;
  try {
    const { stateMachineArn } = await sfn.send(new CreateStateMachineCommand({
      name: 'long-history', roleArn: SFN_ROLE,
      definition: JSON.stringify({ StartAt: 'M', States: { M: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } }, End: true } } }),
    }));
    const input = JSON.stringify({ items: Array.from({ length: ITEMS }, (_, i) => ({ i, data: 'x'.repeat(PAYLOAD) })) });
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input }));
    let status = 'RUNNING';
    while (status === 'RUNNING') {
      await new Promise((r) => setTimeout(r, 50));
      status = (await sfn.send(new DescribeExecutionCommand({ executionArn: executionArn! }))).status!;
    }
    const rows: string[][] = [];
    for (const reverseOrder of [false, true]) {
      let nextToken: string | undefined;
      let pages = 0;
      let events = 0;
      let slowest = 0;
      let heapPeak = await heapUsed();
      const cpu0 = cpuMsOf(engine.pid);
      const t0 = performance.now();
      do {
        const p0 = performance.now();
        const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: MAX_RESULTS, reverseOrder, nextToken }));
        slowest = Math.max(slowest, performance.now() - p0);
        nextToken = page.nextToken;
        pages += 1;
        events += page.events?.length ?? 0;
        if (pages % 10 === 0) heapPeak = Math.max(heapPeak, await heapUsed());
      } while (nextToken);
      const cpu = cpuMsOf(engine.pid) - cpu0;
      rows.push([reverseOrder ? 'reverse' : 'forward', String(events), String(pages), fmt((performance.now() - t0) / 1000, 2),
        fmt(cpu / pages, 2), fmt(slowest, 1), fmt(heapPeak / 2 ** 20, 0)]);
    }
    printTable(['order', 'events', 'pages', 'all pages s', 'engine CPU ms/page', 'slowest page ms', 'engine heap peak MB'], rows);
    console.log(`setup: 1 engine process, 1 nats-server, this driver; a Map of ${ITEMS} Pass items of ${PAYLOAD} bytes, ${MAX_RESULTS} events a page, one page at a time`);
  } catch (e) {
    process.stderr.write(engine.output().slice(-3000));
    throw e;
  } finally {
    await engine.stop();
    await nats.stop();
  }
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
