/**
 * `npx tsx test/bench/workflow-code.bench.ts`: the order workflow decided by hand-written code
 * (src/demo/order-fulfilment.ts) and by the same workflow as code (replayed on every decision
 * task), one after the other against one engine node in the same run; prints decision tasks per
 * second and the decider's CPU per decision task, which is where the replay costs. A script.
 * TOTAL (default 1000), IN_FLIGHT (100), DECIDERS (16), WORKERS (32).
 */
import { ActorFlowClient } from '../../src/sdk/client.js';
import { ORDER_WORKFLOW, registerOrderTypes, startOrderParticipants } from '../../src/demo/order-fulfilment.js';
import { startWorkflowWorker } from '../../src/workflow/index.js';
import { chargeCreditCard, orderWorkflow, recordCompletion, shipOrder, verifyOrder } from '../../examples/workflows-as-code/order.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { fmt, pct, printTable, selfCpuMs, startEngineProcess } from './bench-kit.js';

const TOTAL = Number(process.env.TOTAL ?? 1000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 100);
const DECIDERS = Number(process.env.DECIDERS ?? 16);
const WORKERS = Number(process.env.WORKERS ?? 32);
/** Decision tasks per order workflow: one per step, one to complete. */
const TASKS_PER_RUN = 5;

interface Result { label: string; secs: number; lat: number[]; cpuMs: number }

async function phase(client: ActorFlowClient, domain: string, label: string, waiters: Map<string, () => void>): Promise<Result> {
  const lat: number[] = [];
  let next = 0;
  const cpu0 = selfCpuMs();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < TOTAL) {
      const workflowId = `${label}-${next++}`;
      const t = performance.now();
      const closed = new Promise<void>((resolve) => waiters.set(workflowId, resolve));
      await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, input: '{"orderId":1}' });
      await closed;
      lat.push(performance.now() - t);
    }
  }));
  return { label, secs: (performance.now() - t0) / 1000, lat, cpuMs: selfCpuMs() - cpu0 };
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  const engine = await startEngineProcess(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const results: Result[] = [];

  // 1. Hand-written: decides from the whole history by counting completed steps.
  const hand = 'bench-hand';
  await registerOrderTypes(client, hand);
  const waiters = new Map<string, () => void>();
  const onClosed = (id: string) => { waiters.get(id)?.(); waiters.delete(id); };
  const byHand = startOrderParticipants(client, hand, { deciders: DECIDERS, workers: WORKERS, pollTimeoutMs: 5000, onClosed });
  results.push(await phase(client, hand, 'hand-written decider', waiters));
  await byHand.stop();

  // 2. As code: the workflow function replayed through the history on every decision task.
  const code = 'bench-code';
  await registerOrderTypes(client, code);
  const worker = startWorkflowWorker(client, {
    domain: code, taskList: 'order-decisions', activityTaskList: 'order-activities', workflows: [orderWorkflow],
    activities: [verifyOrder, chargeCreditCard, shipOrder, recordCompletion], concurrency: DECIDERS, activityConcurrency: WORKERS, pollTimeoutMs: 5000,
    onDecided: (task, r) => { if (r.decisions.some((d) => /WorkflowExecution$/.test((d as { decisionType: string }).decisionType))) onClosed(task.workflowExecution.workflowId); },
  });
  results.push(await phase(client, code, 'workflow as code', waiters));
  await worker.stop();
  await client.close();
  await engine.stop();
  await server.stop();

  console.log(`\norder workflow, ${TOTAL} runs, ${IN_FLIGHT} in flight, ${DECIDERS} deciders and ${WORKERS} activity workers in this process, one engine node`);
  printTable(['decider', 'workflows/s', 'decision tasks/s', 'p50 ms', 'p99 ms', 'client CPU ms per decision task'],
    results.map((r) => [r.label, fmt(TOTAL / r.secs), fmt((TOTAL * TASKS_PER_RUN) / r.secs), fmt(pct(r.lat, 50)), fmt(pct(r.lat, 99)), fmt(r.cpuMs / (TOTAL * TASKS_PER_RUN), 3)]));
  console.log(`code ÷ hand-written: decision tasks/s ${fmt(results[0]!.secs / results[1]!.secs, 2)}, client CPU per task ${fmt(results[1]!.cpuMs / results[0]!.cpuMs, 2)}`);
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
