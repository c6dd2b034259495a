import {
  DeprecateDomainCommand, DescribeActivityTypeCommand, DescribeWorkflowExecutionCommand, DescribeWorkflowTypeCommand,
  GetWorkflowExecutionHistoryCommand, PollForActivityTaskCommand, PollForDecisionTaskCommand, RegisterActivityTypeCommand,
  RegisterDomainCommand, RegisterWorkflowTypeCommand, RespondActivityTaskCompletedCommand, RespondDecisionTaskCompletedCommand,
  SignalWorkflowExecutionCommand, StartWorkflowExecutionCommand, UndeprecateWorkflowTypeCommand, type HistoryEvent, type SWFClient,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { uniqueDomain, useSwfEngine } from '../helpers/engine.js';
import { failure, registerSwfDomain } from '../helpers/swf-http.js';
import { until } from '../helpers/until.js';

/*
 * DeprecateDomain as AWS documents it, through the AWS SDK: "After a domain has been deprecated it
 * cannot be used to create new workflow executions or register new types ... Deprecating a domain
 * also deprecates all activity and workflow types registered in the domain. Executions that were
 * started before the domain was deprecated continue to run."
 */

let swf: SWFClient;
const domain = uniqueDomain('deprecated');
const WF = { name: 'order', version: '1' };
const ACT = { name: 'charge', version: '1' };

useSwfEngine((c) => { swf = c; return registerSwfDomain(c, domain, WF, ACT); });

async function decide(taskList: string, decisions: object[]): Promise<void> {
  const t = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: taskList }, identity: 'decider' }));
  expect(t.taskToken, `a decision task on ${taskList}`).toBeTruthy();
  await swf.send(new RespondDecisionTaskCompletedCommand({ taskToken: t.taskToken, decisions: decisions as never }));
}

async function history(workflowId: string, runId: string): Promise<HistoryEvent[]> {
  const h = await swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution: { workflowId, runId } }));
  return h.events ?? [];
}

const attrsOf = (ev: HistoryEvent): Record<string, any> =>
  Object.entries(ev).find(([k]) => k.endsWith('EventAttributes'))?.[1] as Record<string, any>;

describe('a deprecated SWF domain', () => {
  it('refuses new types and executions with DomainDeprecatedFault; runs started before go on and close', async () => {
    const runId = (await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'before', workflowType: WF }))).runId!;
    const cont = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'continues', workflowType: WF, taskList: { name: 'decide-2' } }));
    await decide('decide', [
      { decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId: 'a1' } },
      { decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: '1' } },
    ]);

    await swf.send(new DeprecateDomainCommand({ name: domain }));

    const deprecated = { name: 'DomainDeprecatedFault', message: domain };
    expect(await failure(swf.send(new RegisterWorkflowTypeCommand({ domain, name: 'new-wf', version: '1' })))).toEqual(deprecated);
    expect(await failure(swf.send(new RegisterActivityTypeCommand({ domain, name: 'new-act', version: '1' })))).toEqual(deprecated);
    expect(await failure(swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'after', workflowType: WF })))).toEqual(deprecated);
    // The refused calls changed nothing: the types were never registered.
    expect((await failure(swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType: { name: 'new-wf', version: '1' } })))).name)
      .toBe('UnknownResourceFault');
    // Its types are deprecated with it.
    const wf = await swf.send(new DescribeWorkflowTypeCommand({ domain, workflowType: WF }));
    const act = await swf.send(new DescribeActivityTypeCommand({ domain, activityType: ACT }));
    expect(wf.typeInfo).toMatchObject({ status: 'DEPRECATED' });
    expect(wf.typeInfo?.deprecationDate).toBeInstanceOf(Date);
    expect(act.typeInfo).toMatchObject({ status: 'DEPRECATED' });

    // The run started before: its activity, a signal and its timer all go on.
    const task = await swf.send(new PollForActivityTaskCommand({ domain, taskList: { name: 'work' }, identity: 'worker' }));
    expect(task.activityId).toBe('a1');
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'charged' }));
    await swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId: 'before', runId, signalName: 'nudge' }));
    await until(async () => (await history('before', runId)).some((x) => x.eventType === 'TimerFired'),
      { timeoutMs: 10_000, intervalMs: 100, message: 'TimerFired' });
    // New children and new activities of the (now deprecated) types fail with AWS's documented causes.
    await decide('decide', [
      { decisionType: 'StartChildWorkflowExecution', startChildWorkflowExecutionDecisionAttributes: { workflowType: WF, workflowId: 'child' } },
      { decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId: 'a2' } },
    ]);
    await decide('decide', [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'done' } }]);

    const events = await history('before', runId);
    const types = events.map((x) => x.eventType);
    expect(types).toEqual(expect.arrayContaining(['ActivityTaskCompleted', 'WorkflowExecutionSignaled', 'TimerFired', 'WorkflowExecutionCompleted']));
    expect(attrsOf(events.find((x) => x.eventType === 'StartChildWorkflowExecutionFailed')!)).toMatchObject({ cause: 'WORKFLOW_TYPE_DEPRECATED', workflowId: 'child' });
    expect(attrsOf(events.find((x) => x.eventType === 'ScheduleActivityTaskFailed')!)).toMatchObject({ cause: 'ACTIVITY_TYPE_DEPRECATED', activityId: 'a2' });
    const d = await swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: { workflowId: 'before', runId } }));
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });

    // ContinueAsNew would be a new execution of a deprecated type.
    await decide('decide-2', [{ decisionType: 'ContinueAsNewWorkflowExecution', continueAsNewWorkflowExecutionDecisionAttributes: {} }]);
    const c = await history('continues', cont.runId!);
    expect(attrsOf(c.find((x) => x.eventType === 'ContinueAsNewWorkflowExecutionFailed')!)).toMatchObject({ cause: 'WORKFLOW_TYPE_DEPRECATED' });
    const dc = await swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: { workflowId: 'continues', runId: cont.runId! } }));
    expect(dc.executionInfo).toMatchObject({ executionStatus: 'OPEN' });
  }, 60_000);

  it('no new execution even of a type undeprecated since: children and continue-as-new fail WORKFLOW_TYPE_DEPRECATED', async () => {
    const other = uniqueDomain('deprecated-u');
    await swf.send(new RegisterDomainCommand({ name: other, workflowExecutionRetentionPeriodInDays: '1' }));
    await swf.send(new RegisterWorkflowTypeCommand({
      domain: other, ...WF, defaultTaskList: { name: 'decide' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
    }));
    const runId = (await swf.send(new StartWorkflowExecutionCommand({ domain: other, workflowId: 'w', workflowType: WF }))).runId!;
    await swf.send(new DeprecateDomainCommand({ name: other }));
    await swf.send(new UndeprecateWorkflowTypeCommand({ domain: other, workflowType: WF }));
    const poll = () => swf.send(new PollForDecisionTaskCommand({ domain: other, taskList: { name: 'decide' }, identity: 'decider' }));
    const first = await poll();
    await swf.send(new RespondDecisionTaskCompletedCommand({
      taskToken: first.taskToken,
      decisions: [{ decisionType: 'StartChildWorkflowExecution', startChildWorkflowExecutionDecisionAttributes: { workflowType: WF, workflowId: 'child' } }],
    }));
    const second = await poll();
    await swf.send(new RespondDecisionTaskCompletedCommand({
      taskToken: second.taskToken,
      decisions: [{ decisionType: 'ContinueAsNewWorkflowExecution', continueAsNewWorkflowExecutionDecisionAttributes: {} }],
    }));
    const h = (await swf.send(new GetWorkflowExecutionHistoryCommand({ domain: other, execution: { workflowId: 'w', runId } }))).events ?? [];
    expect(attrsOf(h.find((x) => x.eventType === 'StartChildWorkflowExecutionFailed')!)).toMatchObject({ cause: 'WORKFLOW_TYPE_DEPRECATED' });
    expect(attrsOf(h.find((x) => x.eventType === 'ContinueAsNewWorkflowExecutionFailed')!)).toMatchObject({ cause: 'WORKFLOW_TYPE_DEPRECATED' });
    expect(h.map((x) => x.eventType)).not.toContain('WorkflowExecutionContinuedAsNew');
  }, 30_000);
});
