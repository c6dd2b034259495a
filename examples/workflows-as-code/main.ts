/**
 * Runs one order through the workflow as code: `NATS_URL=nats://127.0.0.1:4222 npx tsx examples/workflows-as-code/main.ts`
 * against a running engine (`npm start` or `actorflow serve`). Prints the run's history.
 */
import { ActorFlowClient } from '../../src/sdk/client.js';
import { devUser } from '../../src/nats/connect-options.js';
import { formatTimeline } from '../../src/demo/order-fulfilment.js';
import { registerTypes, startWorkflowWorker } from '../../src/workflow/index.js';
import { chargeCreditCard, orderWorkflow, recordCompletion, shipOrder, verifyOrder } from './order.js';

const activities = [verifyOrder, chargeCreditCard, shipOrder, recordCompletion];
// npm start's nats-server admits its own users only: `worker` for clients (NATS_USER/AF_NATS_WORKER_PASSWORD to override).
const client = await ActorFlowClient.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', auth: devUser('worker') });
const domain = process.env.DOMAIN ?? 'examples';
await client.ensureDomain(domain);
await registerTypes(client, domain, { workflows: [orderWorkflow], activities });
const worker = startWorkflowWorker(client, { domain, taskList: 'order-decisions', activityTaskList: 'order-activities', workflows: [orderWorkflow], activities, pollTimeoutMs: 1000 });

const workflowId = `order-${Date.now()}`;
const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', {
  domain, workflowId, workflowType: { name: orderWorkflow.name, version: orderWorkflow.version }, input: JSON.stringify({ orderId: 42 }),
});
for (;;) {
  const d = await client.call<{ executionInfo: { executionStatus: string; closeStatus?: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId, runId } });
  if (d.executionInfo.executionStatus === 'CLOSED') {
    console.log(`${workflowId}: ${d.executionInfo.closeStatus}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
console.log(formatTimeline(await client.history(domain, { workflowId, runId })));
await worker.stop();
await client.close();
