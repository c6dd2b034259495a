import type { ActorFlowClient } from '../../src/sdk/client.js';
import { uniqueDomain } from './engine.js';

/** A run driven by hand in a test. */
export interface Run { domain: string; execution: { workflowId: string; runId: string } }

export interface ActivityTimeouts { scheduleToStartTimeout: string; startToCloseTimeout: string; scheduleToCloseTimeout: string; heartbeatTimeout: string }

export const DECISIONS = { name: 'decisions' };
export const ACTIVITIES = { name: 'activities' };
export const POLL = { afPollTimeoutMs: 1000 };
export const UNKNOWN = { name: 'UnknownResourceFault' };

/**
 * Drives runs by hand (the test is the decider and the worker): one fresh domain per run with
 * one workflow type and one activity type named after `label`.
 */
export function manualRuns(client: () => ActorFlowClient, label: string) {
  const WORKFLOW = { name: `${label}-wf`, version: '1' };
  const ACTIVITY = { name: `${label}-act`, version: '1' };

  async function freshDomain(name: string): Promise<string> {
    const domain = uniqueDomain(name);
    await client().call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    await client().call('RegisterWorkflowType', {
      domain, ...WORKFLOW, defaultTaskList: DECISIONS, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '60', defaultTaskStartToCloseTimeout: '10',
    });
    await client().call('RegisterActivityType', { domain, ...ACTIVITY });
    return domain;
  }

  async function start(name: string, timeouts: { executionStartToCloseTimeout?: string; taskStartToCloseTimeout?: string } = {}): Promise<Run> {
    const domain = await freshDomain(name);
    const workflowId = `wf-${name}`;
    const { runId } = await client().call('StartWorkflowExecution', { domain, workflowId, workflowType: WORKFLOW, ...timeouts });
    return { domain, execution: { workflowId, runId } };
  }

  async function pollDecision(run: Run): Promise<Record<string, any>> {
    const t = await client().call('PollForDecisionTask', { domain: run.domain, taskList: DECISIONS, identity: 'decider', ...POLL });
    if (!t.taskToken) throw new Error('no decision task');
    return t;
  }

  async function pollActivity(run: Run): Promise<Record<string, any>> {
    const t = await client().call('PollForActivityTask', { domain: run.domain, taskList: ACTIVITIES, identity: 'worker', ...POLL });
    if (!t.taskToken) throw new Error('no activity task');
    return t;
  }

  /** The decider schedules activity `a1` with the given timeouts (it becomes event 5 of a fresh run). */
  async function scheduleActivity(run: Run, t: ActivityTimeouts): Promise<void> {
    const d = await pollDecision(run);
    await client().call('RespondDecisionTaskCompleted', {
      taskToken: d.taskToken,
      decisions: [{
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: { activityType: ACTIVITY, activityId: 'a1', taskList: ACTIVITIES, ...t },
      }],
    });
  }

  const history = (run: Run) => client().history(run.domain, run.execution);

  return { WORKFLOW, ACTIVITY, freshDomain, start, pollDecision, pollActivity, scheduleActivity, history };
}
