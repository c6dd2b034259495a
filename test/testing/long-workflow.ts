import { CreateStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import type { ActorFlowClient, WireEvent } from '../../src/sdk/client.js';
import type { DecisionResult, DecisionTask } from '../../src/sdk/decider.js';
import { attributesOf } from '../../src/sdk/client.js';
import { SFN_ROLE } from '../helpers/sfn-http.js';
import { ANY_CREDENTIALS, REGION } from '../helpers/swf-http.js';

export const DAY_S = 86_400;
export const DAY_MS = DAY_S * 1000;
export const DECISIONS = 'deciders';
export const WORKERS = 'workers';
/** A task list no worker polls: its activity can only time out. */
export const NOBODY = 'nobody';
/** A task list the test polls by hand. */
export const BY_HAND = 'by-hand';

/** The domain, the workflow type `LongWait` and the activity types `Unstaffed` and `Work`. */
export async function registerLongWorkflow(client: ActorFlowClient, domain: string): Promise<void> {
  await client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
  await client.call('RegisterWorkflowType', { domain, name: 'LongWait', version: '1' });
  for (const name of ['Unstaffed', 'Work']) await client.call('RegisterActivityType', { domain, name, version: '1' });
}

/** Starts a `LongWait` run that may stay open 60 days. */
export async function startLongWorkflow(client: ActorFlowClient, domain: string, workflowId: string, input: 'timer-only' | 'full' | 'heartbeat'): Promise<string> {
  const r = await client.call<{ runId: string }>('StartWorkflowExecution', {
    domain, workflowId, workflowType: { name: 'LongWait', version: '1' }, taskList: { name: DECISIONS }, input,
    executionStartToCloseTimeout: String(60 * DAY_S), taskStartToCloseTimeout: '60', childPolicy: 'TERMINATE',
  });
  return r.runId;
}

const sevenDays = String(7 * DAY_S);
const activity = (name: string, taskList: string, heartbeatTimeout = 'NONE') => ({
  decisionType: 'ScheduleActivityTask',
  scheduleActivityTaskDecisionAttributes: {
    activityType: { name, version: '1' }, activityId: name.toLowerCase(), taskList: { name: taskList },
    // Schedule-to-close is longer, so the 7-day one that fires is always schedule-to-start.
    scheduleToStartTimeout: sevenDays, scheduleToCloseTimeout: String(14 * DAY_S), startToCloseTimeout: sevenDays, heartbeatTimeout,
  },
});

/**
 * The decider of `LongWait`: a 30-day timer; then (input `full`) an activity nobody works on, which
 * times out after 7 days, then one a worker does (7-day timeouts too); then it completes. Input
 * `heartbeat`: one activity with a 1-day heartbeat timeout on BY_HAND; it completes once that closes.
 */
export function decideLongWorkflow(task: DecisionTask): DecisionResult {
  const seen = new Set(task.events.map((e) => e.eventType));
  const input = String(attributesOf(task.events[0]!).input);
  const complete = { decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'done' } }] };
  if (input === 'heartbeat') {
    if (!seen.has('ActivityTaskScheduled')) return { decisions: [activity('Work', BY_HAND, String(DAY_S))] };
    return seen.has('ActivityTaskTimedOut') ? complete : { decisions: [] };
  }
  if (!seen.has('TimerStarted')) {
    return { decisions: [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 'month', startToFireTimeout: String(30 * DAY_S) } }] };
  }
  if (!seen.has('TimerFired')) return { decisions: [] };
  if (input === 'timer-only') return complete;
  if (!seen.has('ActivityTaskScheduled')) return { decisions: [activity('Unstaffed', NOBODY)] };
  if (seen.has('ActivityTaskTimedOut') && !task.events.some((e) => e.eventType === 'ActivityTaskScheduled' && attributesOf(e).activityId === 'work')) {
    return { decisions: [activity('Work', WORKERS)] };
  }
  if (seen.has('ActivityTaskCompleted')) return complete;
  return { decisions: [] };
}

/** The first event of a type (throws when there is none). */
export function eventOf(events: WireEvent[], type: string): WireEvent {
  const e = events.find((x) => x.eventType === type);
  if (!e) throw new Error(`no ${type} in ${events.map((x) => x.eventType).join(', ')}`);
  return e;
}

/** An event's timestamp in epoch ms. */
export const at = (e: WireEvent): number => Math.round(e.eventTimestamp * 1000);

/** The AWS SDK's Step Functions client for a test environment's gateway (one attempt: faults surface at once). */
export function sfnAt(endpoint: string): SFNClient {
  return new SFNClient({ endpoint, region: REGION, credentials: ANY_CREDENTIALS, maxAttempts: 1 });
}

/** Creates a state machine of `definition` through the gateway; returns its ARN. */
export async function createSfnMachine(sfn: SFNClient, name: string, definition: object): Promise<string> {
  const r = await sfn.send(new CreateStateMachineCommand({ name, roleArn: SFN_ROLE, definition: JSON.stringify(definition) }));
  return r.stateMachineArn!;
}
