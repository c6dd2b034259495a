/**
 * The order workflow of the SWF developer guide, with the typed client, the decision builders and
 * the history helpers: four activities in a row, each given the previous one's result.
 *
 *   actorflow serve                     # an engine node (embedded nats-server on 127.0.0.1:4222)
 *   npx tsx examples/order-workflow.ts  # or, installed: import from 'actorflow' and compile
 *
 * In this repository it imports ../src/index.js; an installed package imports 'actorflow'.
 */
import { pathToFileURL } from 'node:url';
import {
  ActivityWorker, ActorFlowClient, Decider, activity, activityResult, decisions, devUser, isFault, newEvents,
  signalsReceived, workflowInput, type DecisionResult, type DecisionTask,
} from '../src/index.js';

export const STEPS = ['VerifyOrder', 'ChargeCreditCard', 'ShipOrder', 'RecordCompletion'] as const;
const VERSION = '1.0';
const WORKFLOW = { name: 'OrderFulfillment', version: VERSION };
const TASK_LISTS = { decisions: 'order-decisions', activities: 'order-activities' };

/** Registers the domain and the types (again is fine: TypeAlreadyExistsFault is ignored). */
async function register(client: ActorFlowClient, domain: string): Promise<void> {
  const again = (e: unknown) => { if (!isFault(e, 'TypeAlreadyExistsFault') && !isFault(e, 'DomainAlreadyExistsFault')) throw e; };
  await client.swf.registerDomain({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }).catch(again);
  await client.swf.registerWorkflowType({
    domain, ...WORKFLOW, defaultTaskList: { name: TASK_LISTS.decisions }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  }).catch(again);
  for (const name of STEPS) {
    await client.swf.registerActivityType({
      domain, name, version: VERSION, defaultTaskList: { name: TASK_LISTS.activities },
      defaultTaskScheduleToStartTimeout: '300', defaultTaskStartToCloseTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '360', defaultTaskHeartbeatTimeout: 'NONE',
    }).catch(again);
  }
}

/** The decider: where the run is comes from the history helpers, what to do next from the builders. */
export function decideOrder(task: DecisionTask): DecisionResult {
  // A `cancel` signal since the previous decision ends the order.
  if (signalsReceived(newEvents(task)).some((s) => s.signalName === 'cancel')) return { decisions: [decisions.cancelWorkflow('canceled by signal')] };
  let input = workflowInput(task.events);
  for (const step of STEPS) {
    const state = activity(task.events, step);
    if (!state) {
      return { decisions: [decisions.scheduleActivity({ activityId: step, activityType: { name: step, version: VERSION }, input })] };
    }
    if (state.status === 'failed' || state.status === 'timedOut' || state.status === 'canceled' || state.status === 'scheduleFailed') {
      return { decisions: [decisions.failWorkflow(`${step} ${state.status}`, JSON.stringify(state))] };
    }
    if (state.status !== 'completed') return { decisions: [] };  // still running: nothing to decide
    input = state.result;
  }
  return { decisions: [decisions.completeWorkflow(activityResult(task.events, STEPS[STEPS.length - 1]))] };
}

/** Each step stamps the order it is given. */
const handlers = Object.fromEntries(STEPS.map((step) => [step, (task: { input?: string }) =>
  JSON.stringify({ ...(JSON.parse(task.input ?? '{}') as object), [step]: 'ok' })]));

/** Runs one order to its end with a decider and a worker of its own; resolves to the closed run's description. */
export async function runOrder(client: ActorFlowClient, domain: string, order: object = { orderId: 'o-1', amount: 42 }) {
  await register(client, domain);
  const decider = new Decider(client, { domain, taskList: TASK_LISTS.decisions, identity: 'order-decider', pollTimeoutMs: 1000 }, decideOrder).start();
  const worker = new ActivityWorker(client, { domain, taskList: TASK_LISTS.activities, identity: 'order-worker', pollTimeoutMs: 1000 }, handlers).start();
  try {
    const workflowId = `order-${Date.now()}`;
    const { runId } = await client.swf.startWorkflowExecution({ domain, workflowId, workflowType: WORKFLOW, input: JSON.stringify(order) });
    const execution = { workflowId, runId: runId! };
    for (;;) {
      const d = await client.swf.describeWorkflowExecution({ domain, execution });
      if (d.executionInfo?.executionStatus === 'CLOSED') {
        const events = await client.history(domain, execution);
        const closed = events[events.length - 1]!;
        return { execution, closeStatus: d.executionInfo.closeStatus, result: (closed.workflowExecutionCompletedEventAttributes as { result?: string } | undefined)?.result, events };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await Promise.all([decider.stop(), worker.stop()]);
  }
}

// As a program: NATS_URL (default nats://127.0.0.1:4222, the embedded server of `actorflow serve`).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = await ActorFlowClient.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', auth: devUser('worker') });
  const run = await runOrder(client, process.env.AF_DOMAIN ?? 'orders');
  console.log(JSON.stringify({ closeStatus: run.closeStatus, result: run.result, events: run.events.length }));
  await client.close();
  process.exit(run.closeStatus === 'COMPLETED' ? 0 : 1);
}
