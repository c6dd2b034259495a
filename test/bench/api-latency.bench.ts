import pino from 'pino';
import { startNode } from '../../src/node.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { registerOrderTypes, ORDER_WORKFLOW, decideOrder } from '../../src/demo/order-fulfilment.js';
import { startNatsServer } from '../helpers/nats-server.js';
const server = await startNatsServer();
const node = await startNode({ natsUrl: server.url, logger: pino({ level: 'silent' }) });
const wrap = (o: any, k: string, label: string) => { const f = o[k].bind(o); o[k] = async (...a: any[]) => { const s = performance.now(); try { return await f(...a); } finally { console.log('   ', label, (performance.now() - s).toFixed(2)); } }; };
wrap(node.owner.store, 'append', 'append');
wrap(node.owner.queues, 'enqueue', 'enqueue');
wrap(node.owner, 'afterCommit', 'afterCommit');
wrap(node.ctx.router, 'call', 'router.call');
const c = await ActorFlowClient.connect({ servers: server.url });
await registerOrderTypes(c, 'p');
const t = async (label: string, f: () => Promise<any>) => { const s = performance.now(); const r = await f(); console.log(label, (performance.now() - s).toFixed(2)); return r; };
for (let i = 0; i < 4; i++) {
  const { runId } = await t('start', () => c.call('StartWorkflowExecution', { domain: 'p', workflowId: 'w' + i, workflowType: ORDER_WORKFLOW }));
  const task = await t('pollD(ready)', () => c.call('PollForDecisionTask', { domain: 'p', taskList: { name: 'order-decisions' } }));
  await t('respondD', () => c.call('RespondDecisionTaskCompleted', { taskToken: task.taskToken, ...decideOrder(task) }));
  const at = await t('pollA(ready)', () => c.call('PollForActivityTask', { domain: 'p', taskList: { name: 'order-activities' } }));
  await t('respondA', () => c.call('RespondActivityTaskCompleted', { taskToken: at.taskToken, result: '{}' }));
  await t('describe', () => c.call('DescribeWorkflowExecution', { domain: 'p', execution: { workflowId: 'w' + i, runId } }));
}
await c.close(); await node.stop(); await server.stop(); process.exit(0);
