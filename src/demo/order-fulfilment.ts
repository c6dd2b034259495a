import { attributesOf, ignore, type ActorFlowClient, type WireEvent } from '../sdk/client.js';
import { ActivityWorker } from '../sdk/activity-worker.js';
import { Decider, type DecisionTask, type DecisionResult } from '../sdk/decider.js';
import { decisions } from '../sdk/decisions.js';
import { workflowInput } from '../sdk/history.js';

/** The order-fulfilment workflow of the SWF developer guide. */
export const ORDER_STEPS = ['VerifyOrder', 'ChargeCreditCard', 'ShipOrder', 'RecordCompletion'] as const;
export const ORDER_WORKFLOW = { name: 'OrderFulfillment', version: '1.0' };
const VERSION = '1.0';

export async function registerOrderTypes(client: ActorFlowClient, domain: string, taskLists = { decisions: 'order-decisions', activities: 'order-activities' }): Promise<void> {
  await client.ensureDomain(domain);
  await client.call('RegisterWorkflowType', {
    domain, ...ORDER_WORKFLOW,
    defaultTaskList: { name: taskLists.decisions }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  }).catch(ignore('TypeAlreadyExistsFault'));
  for (const name of ORDER_STEPS) {
    await client.call('RegisterActivityType', {
      domain, name, version: VERSION, defaultTaskList: { name: taskLists.activities },
      defaultTaskScheduleToStartTimeout: '300', defaultTaskStartToCloseTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '360', defaultTaskHeartbeatTimeout: 'NONE',
    }).catch(ignore('TypeAlreadyExistsFault'));
  }
}

/** The decider's logic: run the four steps in order, then complete; fail on any failed step. */
export function decideOrder(task: DecisionTask): DecisionResult {
  const done = task.events.filter((e) => e.eventType === 'ActivityTaskCompleted').length;
  const bad = task.events.find((e) => e.eventType === 'ActivityTaskFailed' || e.eventType === 'ActivityTaskTimedOut');
  if (bad) {
    return { decisions: [decisions.failWorkflow(bad.eventType, JSON.stringify(attributesOf(bad)))] };
  }
  if (done < ORDER_STEPS.length) {
    const last = [...task.events].reverse().find((e) => e.eventType === 'ActivityTaskCompleted');
    return {
      decisions: [decisions.scheduleActivity({
        activityType: { name: ORDER_STEPS[done]!, version: VERSION }, activityId: `${ORDER_STEPS[done]}-${done + 1}`,
        input: last ? attributesOf(last).result as string | undefined : workflowInput(task.events),
      })],
    };
  }
  return { decisions: [decisions.completeWorkflow('order fulfilled')] };
}

/** Activity handlers: each step stamps the order it is given. */
export function orderHandlers() {
  const step = (name: string) => (task: { input?: string }) => {
    const order = JSON.parse(task.input ?? '{}') as Record<string, unknown>;
    return JSON.stringify({ ...order, [name]: 'ok' });
  };
  return Object.fromEntries(ORDER_STEPS.map((n) => [n, step(n)]));
}

export function startOrderParticipants(client: ActorFlowClient, domain: string,
  opts: { deciders?: number; workers?: number; pollTimeoutMs?: number; onClosed?: (workflowId: string) => void } = {}) {
  const onResponded = opts.onClosed && ((task: DecisionTask, result: DecisionResult) => {
    if (result.decisions.some((d) => /WorkflowExecution$/.test((d as { decisionType: string }).decisionType))) opts.onClosed!(task.workflowExecution.workflowId);
  });
  const decider = new Decider(client, {
    domain, taskList: 'order-decisions', identity: 'order-decider', concurrency: opts.deciders ?? 1, pollTimeoutMs: opts.pollTimeoutMs, onResponded,
  }, decideOrder).start();
  const worker = new ActivityWorker(client, { domain, taskList: 'order-activities', identity: 'order-worker', concurrency: opts.workers ?? 1, pollTimeoutMs: opts.pollTimeoutMs }, orderHandlers()).start();
  return { decider, worker, stop: () => Promise.all([decider.stop(), worker.stop()]).then(() => undefined) };
}

/** A value shown in a timeline: its first 60 characters, and an ellipsis when there is more. */
const clip = (v: string): string => (v.length > 60 ? `${v.slice(0, 59)}…` : v);

/** The history as a readable timeline: id, offset from the start, type, key attributes. */
export function formatTimeline(events: WireEvent[]): string {
  const t0 = events[0]?.eventTimestamp ?? 0;
  return events.map((e) => {
    const a = attributesOf(e);
    const keys = ['activityType', 'activityId', 'identity', 'scheduledEventId', 'startedEventId', 'decisionTaskCompletedEventId', 'timeoutType', 'timerId', 'result', 'reason', 'cause'];
    const shown = keys.filter((k) => a[k] !== undefined).map((k) => `${k}=${typeof a[k] === 'object' ? (a[k] as { name: string }).name : clip(String(a[k]))}`);
    const ms = Math.round((e.eventTimestamp - t0) * 1000);
    return `${String(e.eventId).padStart(3)}  +${String(ms).padStart(5)} ms  ${e.eventType.padEnd(34)} ${shown.join(' ')}`;
  }).join('\n');
}
