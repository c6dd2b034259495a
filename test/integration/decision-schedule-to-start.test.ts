import {
  GetWorkflowExecutionHistoryCommand, PollForDecisionTaskCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand, SignalWorkflowExecutionCommand, StartWorkflowExecutionCommand,
  type HistoryEvent, type SWFClient,
} from '@aws-sdk/client-swf';
import { describe, it } from 'vitest';
import { uniqueDomain, useSwfEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/*
 * RespondDecisionTaskCompleted's taskListScheduleToStartTimeout, through the AWS SDK on a live
 * engine (real time; durations are whole seconds). AWS: "Specifies a timeout (in seconds) for the
 * task list override. When this parameter is missing, the task list override is permanent ... If a
 * decision task scheduled on the override task list is not started within the timeout, the decision
 * task will time out. Amazon SWF will revert the override and schedule a new decision task to the
 * original task list."
 */

let swf: SWFClient;
const domain = uniqueDomain('s2s');
const WF = { name: 'redirect', version: '1' };

useSwfEngine(async (c) => {
  swf = c;
  await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
  await swf.send(new RegisterWorkflowTypeCommand({
    domain, ...WF, defaultTaskList: { name: 'unused' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  }));
});

const attrsOf = (ev: HistoryEvent): Record<string, any> =>
  Object.entries(ev).find(([k]) => k.endsWith('EventAttributes'))?.[1] as Record<string, any>;

async function history(workflowId: string, runId: string): Promise<HistoryEvent[]> {
  return (await swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution: { workflowId, runId } }))).events ?? [];
}

/** Starts a run on its own decision list, takes its first decision task and redirects the run. */
async function startRedirected(workflowId: string, to: string, timeout: string) {
  const home = `${workflowId}-home`;
  const runId = (await swf.send(new StartWorkflowExecutionCommand({
    domain, workflowId, workflowType: WF, taskList: { name: home }, taskStartToCloseTimeout: '20',
  }))).runId!;
  const t = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: home }, identity: 'decider' }));
  await swf.send(new RespondDecisionTaskCompletedCommand({
    taskToken: t.taskToken, decisions: [], taskList: { name: to }, taskListScheduleToStartTimeout: timeout,
  }));
  // A signal makes SWF schedule the next decision task: on the redirected list.
  await swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId, runId, signalName: 'go' }));
  return { runId, home };
}

describe.concurrent('taskListScheduleToStartTimeout of RespondDecisionTaskCompleted', () => {
  it('is recorded, arms SCHEDULE_TO_START on the redirected task, and the timeout reverts to the original list', async ({ expect }) => {
    const { runId, home } = await startRedirected('times-out', 'nobody-polls', '1');
    let events: HistoryEvent[] = [];
    await until(async () => {
      events = await history('times-out', runId);
      return events.some((x) => x.eventType === 'DecisionTaskTimedOut') && events.at(-1)?.eventType === 'DecisionTaskScheduled';
    }, { timeoutMs: 15_000, intervalMs: 100, message: 'DecisionTaskTimedOut' });
    expect(events.map((x) => x.eventType)).toEqual([
      'WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted',
      'WorkflowExecutionSignaled', 'DecisionTaskScheduled', 'DecisionTaskTimedOut', 'DecisionTaskScheduled',
    ]);
    expect(attrsOf(events[1]!)).toEqual({ taskList: { name: home }, taskPriority: '0', startToCloseTimeout: '20' });
    expect(attrsOf(events[3]!)).toMatchObject({ taskList: { name: 'nobody-polls' }, taskListScheduleToStartTimeout: '1' });
    // The redirected task carries the timeout; the run's own taskStartToCloseTimeout is untouched.
    expect(attrsOf(events[5]!)).toEqual({ taskList: { name: 'nobody-polls' }, taskPriority: '0', startToCloseTimeout: '20', scheduleToStartTimeout: '1' });
    expect(attrsOf(events[6]!)).toEqual({ timeoutType: 'SCHEDULE_TO_START', scheduledEventId: 6, startedEventId: 0 });
    const late = events[6]!.eventTimestamp!.getTime() - events[5]!.eventTimestamp!.getTime();
    expect(late, 'fired after the 1 s timeout, not before').toBeGreaterThanOrEqual(1000);
    expect(late, 'and not much later').toBeLessThan(5000);
    // Reverted: the new task is on the original list, with no SCHEDULE_TO_START, and a decider there gets it.
    expect(attrsOf(events[7]!)).toEqual({ taskList: { name: home }, taskPriority: '0', startToCloseTimeout: '20' });
    const t = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: home }, identity: 'decider' }));
    expect(t.startedEventId).toBe(9);
    await swf.send(new RespondDecisionTaskCompletedCommand({
      taskToken: t.taskToken, decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: {} }],
    }));
    expect((await history('times-out', runId)).at(-1)?.eventType).toBe('WorkflowExecutionCompleted');
  }, 30_000);

  it('a redirected task started in time does not time out', async ({ expect }) => {
    const { runId } = await startRedirected('in-time', 'polled', '2');
    const t = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: 'polled' }, identity: 'decider' }));
    expect(t.startedEventId).toBe(7);
    await new Promise((r) => setTimeout(r, 2500));
    await swf.send(new RespondDecisionTaskCompletedCommand({
      taskToken: t.taskToken, decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: {} }],
    }));
    const types = (await history('in-time', runId)).map((x) => x.eventType);
    expect(types).not.toContain('DecisionTaskTimedOut');
    expect(types.at(-1)).toBe('WorkflowExecutionCompleted');
  }, 30_000);
});
