/**
 * `npx tsx test/bench/sfn-wide-map.bench.ts`: one Map (and one Parallel) execution of N items on
 * one in-process engine, while a probe sends ListStateMachines and DescribeExecution one after the
 * other over HTTP. Prints, per N: the time the execution took, the longest probe answer (how long
 * the node was blocked at most) and the history length. A script, not a test.
 * `SIZES=1000,5000,10000 KINDS=map,parallel` choose the runs.
 */
import { CreateStateMachineCommand, DescribeExecutionCommand, GetExecutionHistoryCommand, ListStateMachinesCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SFN_ROLE, startSfnHttpEngine } from '../helpers/sfn-http.js';

const SIZES = (process.env.SIZES ?? '1000,5000,10000').split(',').map(Number);
const KINDS = (process.env.KINDS ?? 'map,parallel').split(',');

const pass = { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } };
const definition = (kind: string, n: number) => (kind === 'map'
  ? { StartAt: 'M', States: { M: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: pass, End: true } } }
  : { StartAt: 'Par', States: { Par: { Type: 'Parallel', Branches: Array.from({ length: n }, (_, b) => ({ StartAt: `B${b}`, States: { [`B${b}`]: { Type: 'Pass', End: true } } })), End: true } } });

async function main(): Promise<void> {
  const h = await startSfnHttpEngine();
  const rows: string[] = [];
  try {
    for (const kind of KINDS) {
      for (const n of SIZES) {
        const { stateMachineArn } = await h.sfn.send(new CreateStateMachineCommand({
          name: `wide-${kind}-${n}`, roleArn: SFN_ROLE, definition: JSON.stringify(definition(kind, n)),
        }));
        const input = JSON.stringify(kind === 'map' ? { items: Array.from({ length: n }, (_, i) => i) } : {});
        const t0 = performance.now();
        const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn, input }));
        const started = performance.now() - t0;
        let worst = started;
        let status = 'RUNNING';
        let probes = 0;
        while (status === 'RUNNING') {
          const p0 = performance.now();
          await h.sfn.send(new ListStateMachinesCommand({}));
          status = (await h.sfn.send(new DescribeExecutionCommand({ executionArn: executionArn! }))).status!;
          worst = Math.max(worst, (performance.now() - p0) / 2);
          probes += 1;
        }
        const total = performance.now() - t0;
        // The last event's id (paging all events through GetExecutionHistory is slow and not measured here).
        const events = (await h.sfn.send(new GetExecutionHistoryCommand({ executionArn: executionArn!, reverseOrder: true, maxResults: 1 }))).events![0]!.id;
        rows.push(`| ${kind} | ${n} | ${status} | ${total.toFixed(0)} | ${started.toFixed(0)} | ${worst.toFixed(0)} | ${probes} | ${events} |`);
        console.log(rows.at(-1));
      }
    }
  } finally {
    await h.stop();
  }
  console.log('\n| kind | items | status | total ms | StartExecution ms | worst probe ms | probes | history events |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((e) => { console.error(e); process.exit(1); });
