/**
 * A subscription trial, as a user would write it: welcome the customer, wait out a 30-day trial,
 * then charge the card (a 7-day window), and complete with the charge's receipt.
 * In an installed project the imports read `from 'actorflow'`.
 */
import { attributesOf, type ActorFlowClient } from '../../src/sdk/client.js';
import { ActivityWorker } from '../../src/sdk/activity-worker.js';
import { Decider, type DecisionResult, type DecisionTask } from '../../src/sdk/decider.js';

export const TRIAL = { name: 'Trial', version: '1' };
const DAY = 86_400;

export async function registerTrial(client: ActorFlowClient, domain: string): Promise<void> {
  await client.ensureDomain(domain);
  await client.call('RegisterWorkflowType', {
    domain, ...TRIAL, defaultTaskList: { name: 'trial-decisions' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: String(60 * DAY), defaultTaskStartToCloseTimeout: '30',
  });
  for (const name of ['SendWelcome', 'ChargeCard']) {
    await client.call('RegisterActivityType', {
      domain, name, version: '1', defaultTaskList: { name: 'trial-work' },
      defaultTaskScheduleToStartTimeout: String(7 * DAY), defaultTaskScheduleToCloseTimeout: String(7 * DAY),
      defaultTaskStartToCloseTimeout: '300', defaultTaskHeartbeatTimeout: 'NONE',
    });
  }
}

const schedule = (name: string, input: string) => ({
  decisionType: 'ScheduleActivityTask',
  scheduleActivityTaskDecisionAttributes: { activityType: { name, version: '1' }, activityId: name, input },
});

/** The decider: where the run is follows from which events its history holds. */
export function decideTrial(task: DecisionTask): DecisionResult {
  const done = (type: string) => task.events.filter((e) => e.eventType === type);
  const customer = String(attributesOf(task.events[0]!).input);
  const completed = done('ActivityTaskCompleted');
  if (done('ActivityTaskScheduled').length === 0) return { decisions: [schedule('SendWelcome', customer)] };
  if (completed.length === 1 && done('TimerStarted').length === 0) {
    return { decisions: [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 'trial', startToFireTimeout: String(30 * DAY) } }] };
  }
  if (done('TimerFired').length === 1 && done('ActivityTaskScheduled').length === 1) return { decisions: [schedule('ChargeCard', customer)] };
  if (completed.length === 2) {
    const receipt = String(attributesOf(completed[1]!).result);
    return { decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: receipt } }] };
  }
  return { decisions: [] };
}

/** Starts the trial's decider and worker; `stop()` ends both. */
export function startTrialWorkers(client: ActorFlowClient, domain: string): { stop(): Promise<void> } {
  const decider = new Decider(client, { domain, taskList: 'trial-decisions', pollTimeoutMs: 1000 }, decideTrial).start();
  const worker = new ActivityWorker(client, { domain, taskList: 'trial-work', pollTimeoutMs: 1000 }, {
    SendWelcome: (t) => `welcomed ${t.input}`,
    ChargeCard: (t) => `receipt for ${t.input}`,
  }).start();
  return { async stop() { await decider.stop(); await worker.stop(); } };
}
