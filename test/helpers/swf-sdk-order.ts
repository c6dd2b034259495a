import {
  PollForActivityTaskCommand, PollForDecisionTaskCommand, RegisterActivityTypeCommand, RegisterDomainCommand,
  RegisterWorkflowTypeCommand, RespondActivityTaskCompletedCommand, RespondDecisionTaskCompletedCommand,
  type Decision, type HistoryEvent, type SWFClient,
} from '@aws-sdk/client-swf';

/** The SWF developer guide's order-fulfilment workflow, written against the AWS SDK only. */
export const STEPS = ['VerifyOrder', 'ChargeCreditCard', 'ShipOrder', 'RecordCompletion'] as const;
export const ORDER_TYPE = { name: 'OrderFulfillment', version: '1.0' };
export const DECISIONS = 'order-decisions';
export const ACTIVITIES = 'order-activities';

export async function registerOrder(swf: SWFClient, domain: string): Promise<void> {
  await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
  await swf.send(new RegisterWorkflowTypeCommand({
    domain, ...ORDER_TYPE, defaultTaskList: { name: DECISIONS }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  }));
  for (const name of STEPS) {
    await swf.send(new RegisterActivityTypeCommand({
      domain, name, version: '1.0', defaultTaskList: { name: ACTIVITIES }, defaultTaskScheduleToStartTimeout: '300',
      defaultTaskStartToCloseTimeout: '60', defaultTaskScheduleToCloseTimeout: '360', defaultTaskHeartbeatTimeout: 'NONE',
    }));
  }
}

/** Runs the four steps in order, each fed the previous result; fails the run on any failed step. */
export function decideOrder(events: HistoryEvent[]): Decision[] {
  const bad = events.find((e) => /^(ActivityTaskFailed|ActivityTaskTimedOut|ScheduleActivityTaskFailed)$/.test(e.eventType ?? ''));
  if (bad) return [{ decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: bad.eventType } }];
  const completed = events.filter((e) => e.eventType === 'ActivityTaskCompleted');
  const last = completed.at(-1)?.activityTaskCompletedEventAttributes?.result;
  const n = completed.length;
  if (n === STEPS.length) return [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: last } }];
  return [{
    decisionType: 'ScheduleActivityTask',
    scheduleActivityTaskDecisionAttributes: {
      activityType: { name: STEPS[n], version: '1.0' }, activityId: `${STEPS[n]}-${n + 1}`,
      input: last ?? events[0]?.workflowExecutionStartedEventAttributes?.input,
    },
  }];
}

const quietly = (stop: AbortSignal) => (e: unknown) => { if (!stop.aborted) throw e; return undefined; };

/** A decider loop: long-polls, reads every page of the task's history, answers with `decideOrder`. */
export async function deciderLoop(swf: SWFClient, domain: string, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    const task = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: DECISIONS }, identity: 'sdk-decider' }), { abortSignal: stop })
      .catch(quietly(stop));
    if (!task?.taskToken) continue;
    const events = [...task.events ?? []];
    for (let next = task.nextPageToken; next;) {
      const page = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: DECISIONS }, nextPageToken: next }));
      events.push(...page.events ?? []);
      next = page.nextPageToken;
    }
    await swf.send(new RespondDecisionTaskCompletedCommand({ taskToken: task.taskToken, decisions: decideOrder(events) }));
  }
}

/** An activity worker loop: each step stamps the order JSON it is given. */
export async function workerLoop(swf: SWFClient, domain: string, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    const task = await swf.send(new PollForActivityTaskCommand({ domain, taskList: { name: ACTIVITIES }, identity: 'sdk-worker' }), { abortSignal: stop })
      .catch(quietly(stop));
    if (!task?.taskToken) continue;
    const order = JSON.parse(task.input ?? '{}') as Record<string, unknown>;
    const result = JSON.stringify({ ...order, [task.activityType!.name!]: 'ok' });
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result }));
  }
}
