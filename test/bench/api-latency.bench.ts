/**
 * `npx tsx test/bench/api-latency.bench.ts`: latency of each call of one decision/activity round,
 * sequentially, against an in-process engine node; prints a table (p50/p99 over the runs).
 */
import pino from 'pino';
import { startNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { registerOrderTypes, ORDER_WORKFLOW, decideOrder } from '../../src/demo/order-fulfilment.js';
import { startNatsServer } from '../helpers/nats-server.js';

const server = await startNatsServer();
const node = await startNode({ natsUrl: server.url, logger: pino({ level: 'silent' }) });
const c = await ActorFlowClient.connect({ servers: server.url });
await registerOrderTypes(c, 'lat');
const samples = new Map<string, number[]>();
const t = async <T>(label: string, f: () => Promise<T>): Promise<T> => {
  const s = performance.now();
  const r = await f();
  samples.set(label, [...(samples.get(label) ?? []), performance.now() - s]);
  return r;
};
const decisionRound = async () => {
  const task = await t('PollForDecisionTask (task ready)', () => c.call('PollForDecisionTask', { domain: 'lat', taskList: { name: 'order-decisions' } }));
  await t('RespondDecisionTaskCompleted', () => c.call('RespondDecisionTaskCompleted', { taskToken: task.taskToken, ...decideOrder(task as never) }));
};
for (let i = 0; i < 100; i++) {
  const { runId } = await t('StartWorkflowExecution', () => c.call('StartWorkflowExecution', { domain: 'lat', workflowId: `w${i}`, workflowType: ORDER_WORKFLOW }));
  for (let step = 0; step < 4; step++) {
    await decisionRound();
    const at = await t('PollForActivityTask (task ready)', () => c.call('PollForActivityTask', { domain: 'lat', taskList: { name: 'order-activities' } }));
    await t('RecordActivityTaskHeartbeat', () => c.call('RecordActivityTaskHeartbeat', { taskToken: at.taskToken }));
    await t('RespondActivityTaskCompleted', () => c.call('RespondActivityTaskCompleted', { taskToken: at.taskToken, result: '{}' }));
  }
  await decisionRound();
  await t('DescribeWorkflowExecution', () => c.call('DescribeWorkflowExecution', { domain: 'lat', execution: { workflowId: `w${i}`, runId } }));
  await t('GetWorkflowExecutionHistory (29 events)', () => c.call('GetWorkflowExecutionHistory', { domain: 'lat', execution: { workflowId: `w${i}`, runId } }));
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * (xs.length - 1))]!;
console.log('| call | p50 ms | p99 ms |\n|---|---|---|');
for (const [k, xs] of samples) console.log(`| ${k} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`);
await c.close();
await node.stop();
await server.stop();
process.exit(0);
