/**
 * `npx tsx test/bench/sfn-list-executions.bench.ts`: ListExecutions over N Step Functions executions
 * of one state machine (Choice → Succeed, Fail, or a Task on an activity nobody polls), started
 * through the API over NATS against one engine node in this process; prints p50/p99 per query.
 * Only the public API is used, so the same script times any commit. A script, not a test.
 */
import pino from 'pino';
import { startNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { inParallel } from '../helpers/in-parallel.js';
import { startNatsServer } from '../helpers/nats-server.js';

const N = Number(process.env.AF_BENCH_EXECUTIONS ?? 3000);
const ROUNDS = Number(process.env.AF_BENCH_ROUNDS ?? 100);

const server = await startNatsServer();
const node = await startNode({ natsUrl: server.url, logger: pino({ level: 'silent' }) });
const c = await ActorFlowClient.connect({ servers: server.url });
const { activityArn } = await c.call<{ activityArn: string }>('CreateActivity', { name: 'bench-idle' });
const { stateMachineArn } = await c.call<{ stateMachineArn: string }>('CreateStateMachine', {
  name: 'bench-list', roleArn: 'arn:aws:iam::000000000000:role/bench',
  definition: JSON.stringify({
    StartAt: 'Route',
    States: {
      Route: { Type: 'Choice', Default: 'Work', Choices: [{ Variable: '$.o', StringEquals: 's', Next: 'Done' }, { Variable: '$.o', StringEquals: 'f', Next: 'Broken' }] },
      Done: { Type: 'Succeed' },
      Broken: { Type: 'Fail', Error: 'E' },
      Work: { Type: 'Task', Resource: activityArn, End: true },
    },
  }),
});
let s = performance.now();
await inParallel(Array.from({ length: N }, (_, i) => i), 16, async (i) => {
  await c.call('StartExecution', { stateMachineArn, name: `x-${i}`, input: JSON.stringify({ o: ['s', 'f', 'w'][i % 3] }) });
});
const startMs = performance.now() - s;

const samples = new Map<string, number[]>();
async function measure(label: string, input: object): Promise<void> {
  const xs: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    s = performance.now();
    await c.call('ListExecutions', { stateMachineArn, ...input });
    xs.push(performance.now() - s);
  }
  samples.set(label, xs);
}
const first = await c.call<{ nextToken: string }>('ListExecutions', { stateMachineArn });
await measure('first page (100, default)', {});
await measure('next page (token), 100', { nextToken: first.nextToken });
await measure('1,000 per page', { maxResults: 1000 });
await measure('statusFilter RUNNING, 100', { statusFilter: 'RUNNING' });
await measure('statusFilter TIMED_OUT (none)', { statusFilter: 'TIMED_OUT' });

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * (xs.length - 1))]!;
console.log(`\n${N.toLocaleString('en')} executions of one state machine (started in ${(startMs / 1000).toFixed(1)} s); ${ROUNDS} ListExecutions calls per row over NATS\n`);
console.log('| query | p50 ms | p99 ms |\n|---|---|---|');
for (const [k, xs] of samples) console.log(`| ${k} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`);
await c.close();
await node.stop();
await server.stop();
process.exit(0);
