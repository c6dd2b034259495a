/**
 * `npx tsx test/bench/sfn-wide-map.bench.ts`: one Map (and one Parallel) execution of N items on
 * an engine process of its own, while a probe sends ListStateMachines over HTTP every 5 ms from
 * before CreateStateMachine to the end, and /metrics is read every 200 ms. Prints, per N: the time
 * the execution took, CreateStateMachine and StartExecution latency, the longest probe answer, the
 * node's longest event-loop stall (prom-client's nodejs_eventloop_lag_max_seconds: how long the node
 * was blocked at most), its peak heap and the history length. A script, not a test.
 * `SIZES=1000,5000,10000 KINDS=map,parallel` choose the runs.
 */
import { CreateStateMachineCommand, DescribeExecutionCommand, GetExecutionHistoryCommand, ListStateMachinesCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { spawnEngine } from '../helpers/engine-process.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { SFN_ROLE, sfnClient } from '../helpers/sfn-http.js';

const SIZES = (process.env.SIZES ?? '1000,5000,10000').split(',').map(Number);
const KINDS = (process.env.KINDS ?? 'map,parallel').split(',');

const pass = { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } };
const definition = (kind: string, n: number) => (kind === 'map'
  ? { StartAt: 'M', States: { M: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: pass, End: true } } }
  : { StartAt: 'Par', States: { Par: { Type: 'Parallel', Branches: Array.from({ length: n }, (_, b) => ({ StartAt: `B${b}`, States: { [`B${b}`]: { Type: 'Pass', End: true } } })), End: true } } });

async function main(): Promise<void> {
  const nats = await startNatsServer();
  // ENGINE_NODE_ARGS: flags for the engine's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const engine = await spawnEngine(nats.url, { AF_ACCESS_KEYS: '' }, { nodeArgs: process.env.ENGINE_NODE_ARGS?.split(' ').filter(Boolean) });
  const h = { sfn: sfnClient(Number(new URL(engine.http).port)) };
  /** The node's longest event-loop stall since the last scrape (prom-client resets it on each). */
  let heapPeak = 0;
  const stall = async (): Promise<number> => {
    const text = await (await fetch(`${engine.http}/metrics`)).text();
    const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    if (heap) heapPeak = Math.max(heapPeak, Number(heap[1]));
    const m = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
    return m ? Number(m[1]) * 1000 : NaN;
  };
  const rows: string[] = [];
  try {
    for (const kind of KINDS) {
      for (const n of SIZES) {
        // The probe runs from before CreateStateMachine to the end: every answer's latency counts.
        let probing = true;
        let worst = 0;
        let probes = 0;
        let stalled = 0;
        await stall();
        heapPeak = 0;
        const scrape = (async () => {
          while (probing) {
            stalled = Math.max(stalled, await stall());
            await new Promise((r) => setTimeout(r, 200));
          }
          stalled = Math.max(stalled, await stall());
        })();
        const probe = (async () => {
          while (probing) {
            const p0 = performance.now();
            await h.sfn.send(new ListStateMachinesCommand({}));
            worst = Math.max(worst, performance.now() - p0);
            probes += 1;
            await new Promise((r) => setTimeout(r, 5));
          }
        })();
        const c0 = performance.now();
        const { stateMachineArn } = await h.sfn.send(new CreateStateMachineCommand({
          name: `wide-${kind}-${n}`, roleArn: SFN_ROLE, definition: JSON.stringify(definition(kind, n)),
        }));
        const created = performance.now() - c0;
        const input = JSON.stringify(kind === 'map' ? { items: Array.from({ length: n }, (_, i) => i) } : {});
        const t0 = performance.now();
        const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn, input }));
        const started = performance.now() - t0;
        let status = 'RUNNING';
        while (status === 'RUNNING') {
          status = (await h.sfn.send(new DescribeExecutionCommand({ executionArn: executionArn! }))).status!;
          await new Promise((r) => setTimeout(r, 20));
        }
        const total = performance.now() - t0;
        probing = false;
        await probe;
        await scrape;
        // The last event's id (paging all events through GetExecutionHistory is slow and not measured here).
        const events = (await h.sfn.send(new GetExecutionHistoryCommand({ executionArn: executionArn!, reverseOrder: true, maxResults: 1 }))).events![0]!.id;
        rows.push(`| ${kind} | ${n} | ${status} | ${total.toFixed(0)} | ${created.toFixed(0)} | ${started.toFixed(0)} | ${worst.toFixed(0)} | ${stalled.toFixed(0)} | ${(heapPeak / 1e6).toFixed(0)} | ${probes} | ${events} |`);
        console.log(rows.at(-1));
      }
    }
  } finally {
    h.sfn.destroy();
    await engine.stop();
    await nats.stop();
  }
  console.log('\n| kind | items | status | total ms | CreateStateMachine ms | StartExecution ms | worst probe ms | longest node stall ms | peak heap MB | probes | history events |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((e) => { console.error(e); process.exit(1); });
