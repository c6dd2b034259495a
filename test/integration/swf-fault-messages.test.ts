import {
  DeprecateDomainCommand, DeprecateWorkflowTypeCommand, DescribeWorkflowExecutionCommand, PollForActivityTaskCommand,
  PollForDecisionTaskCommand, RegisterActivityTypeCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand,
  RespondActivityTaskCompletedCommand, RespondDecisionTaskCompletedCommand, SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand, UndeprecateActivityTypeCommand, UndeprecateDomainCommand, type SWFClient,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { uniqueDomain, useSwfEngine } from '../helpers/engine.js';
import { failure, registerSwfDomain } from '../helpers/swf-http.js';

/*
 * SWF fault messages in AWS's words (the wordings moto mirrors from AWS), checked through the AWS
 * SDK for JavaScript: error.name is the fault, error.message its text.
 */

let swf: SWFClient;
const domain = uniqueDomain('faults');
const WF = { name: 'test-workflow', version: 'v1.0' };
const ACT = { name: 'test-activity', version: 'v1.0' };

useSwfEngine((c) => { swf = c; return registerSwfDomain(c, domain, WF, ACT); });

describe('SWF fault messages as AWS words them', () => {
  it('DomainAlreadyExistsFault and DomainDeprecatedFault: the message is the domain name', async () => {
    const other = uniqueDomain('faults-d');
    await swf.send(new RegisterDomainCommand({ name: other, workflowExecutionRetentionPeriodInDays: '1' }));
    expect(await failure(swf.send(new RegisterDomainCommand({ name: other, workflowExecutionRetentionPeriodInDays: '1' }))))
      .toEqual({ name: 'DomainAlreadyExistsFault', message: other });
    expect(await failure(swf.send(new UndeprecateDomainCommand({ name: other }))))
      .toEqual({ name: 'DomainAlreadyExistsFault', message: other });
    await swf.send(new DeprecateDomainCommand({ name: other }));
    expect(await failure(swf.send(new DeprecateDomainCommand({ name: other }))))
      .toEqual({ name: 'DomainDeprecatedFault', message: other });
    expect(await failure(swf.send(new StartWorkflowExecutionCommand({ domain: other, workflowId: 'w', workflowType: WF }))))
      .toEqual({ name: 'DomainDeprecatedFault', message: other });
  });

  it('TypeAlreadyExistsFault names the type as WorkflowType=[name=…, version=…] (ActivityType likewise)', async () => {
    expect(await failure(swf.send(new RegisterWorkflowTypeCommand({ domain, ...WF }))))
      .toEqual({ name: 'TypeAlreadyExistsFault', message: 'WorkflowType=[name=test-workflow, version=v1.0]' });
    expect(await failure(swf.send(new RegisterActivityTypeCommand({ domain, ...ACT }))))
      .toEqual({ name: 'TypeAlreadyExistsFault', message: 'ActivityType=[name=test-activity, version=v1.0]' });
    expect(await failure(swf.send(new UndeprecateActivityTypeCommand({ domain, activityType: ACT }))))
      .toEqual({ name: 'TypeAlreadyExistsFault', message: 'ActivityType=[name=test-activity, version=v1.0]' });
  });

  it('TypeDeprecatedFault names the type the same way (deprecating twice, starting a deprecated type)', async () => {
    const old = { name: 'old-workflow', version: 'v1.0' };
    await swf.send(new RegisterWorkflowTypeCommand({ domain, ...old, defaultTaskList: { name: 'decide' } }));
    await swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: old }));
    const message = 'WorkflowType=[name=old-workflow, version=v1.0]';
    expect(await failure(swf.send(new DeprecateWorkflowTypeCommand({ domain, workflowType: old })))).toEqual({ name: 'TypeDeprecatedFault', message });
    expect(await failure(swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'old-1', workflowType: old })))).toEqual({ name: 'TypeDeprecatedFault', message });
  });

  it('WorkflowExecutionAlreadyStartedFault says "Already Started"', async () => {
    await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'twice', workflowType: WF }));
    expect(await failure(swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'twice', workflowType: WF }))))
      .toEqual({ name: 'WorkflowExecutionAlreadyStartedFault', message: 'Already Started' });
  });

  it('an unknown execution is "Unknown execution: WorkflowExecution=[…]", or "Unknown execution, workflowId = …" without a runId', async () => {
    const runId = '0123456789abcdef0123456789abcdef';
    expect(await failure(swf.send(new DescribeWorkflowExecutionCommand({ domain, execution: { workflowId: 'nobody', runId } }))))
      .toEqual({ name: 'UnknownResourceFault', message: `Unknown execution: WorkflowExecution=[workflowId=nobody, runId=${runId}]` });
    expect(await failure(swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId: 'nobody', runId, signalName: 's' }))))
      .toEqual({ name: 'UnknownResourceFault', message: `Unknown execution: WorkflowExecution=[workflowId=nobody, runId=${runId}]` });
    expect(await failure(swf.send(new SignalWorkflowExecutionCommand({ domain, workflowId: 'nobody', signalName: 's' }))))
      .toEqual({ name: 'UnknownResourceFault', message: 'Unknown execution, workflowId = nobody' });
  });

  it('an activity task that is gone is "Unknown activity, scheduledEventId = 5"', async () => {
    await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'act-1', workflowType: WF, taskList: { name: 'decide-act-1' } }));
    const d = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: 'decide-act-1' } }));
    await swf.send(new RespondDecisionTaskCompletedCommand({
      taskToken: d.taskToken!,
      decisions: [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId: 'a1', taskList: { name: 'work-act-1' } } }],
    }));
    const task = await swf.send(new PollForActivityTaskCommand({ domain, taskList: { name: 'work-act-1' } }));
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken!, result: 'done' }));
    expect(await failure(swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken!, result: 'again' }))))
      .toEqual({ name: 'UnknownResourceFault', message: 'Unknown activity, scheduledEventId = 5' });
  });
});
