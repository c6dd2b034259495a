import {
  CreateActivityCommand, CreateStateMachineCommand, CreateStateMachineAliasCommand, DescribeExecutionCommand, GetActivityTaskCommand, ListExecutionsCommand,
  PublishStateMachineVersionCommand, SendTaskSuccessCommand, StartExecutionCommand, StartSyncExecutionCommand, StopExecutionCommand, UpdateStateMachineCommand, type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { createMachine, fullHistory, sfnHttpEngineForFile, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';
import { MAX_CHILD_DEPTH } from '../../src/sfn/integrations/child-executions-lineage.js';

const h = sfnHttpEngineForFile();
const sfn = () => h.sfn;

const ECHO = { StartAt: 'P', States: { P: { Type: 'Pass', Parameters: { 'got.$': '$.n' }, End: true } } };
const WAIT_FOREVER = { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 600, End: true } } };
const FAIL = { StartAt: 'F', States: { F: { Type: 'Fail', Error: 'Child.Broke', Cause: 'it broke' } } };

/** A parent of one Task state on `resource` starting `child` with `{ n, link }` as its input (AWS's documented link). */
function parentOf(resource: string, child: string, extra: object = {}): object {
  return {
    StartAt: 'Child',
    States: {
      Child: {
        Type: 'Task', Resource: `arn:aws:states:::states:${resource}`,
        Parameters: { StateMachineArn: child, Input: { 'n.$': '$.n', 'AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$': '$$.Execution.Id' } },
        End: true, ...extra,
      },
    },
  };
}

async function run(definition: object, input: object = { n: 1 }) {
  const stateMachineArn = await createMachine(sfn(), definition);
  const { executionArn } = await sfn().send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }));
  return executionArn!;
}

const detailsOf = (events: HistoryEvent[], type: string) => {
  const e = events.find((x) => x.type === type);
  expect(e, type).toBeDefined();
  return Object.entries(e!).find(([k]) => k.endsWith('EventDetails'))![1] as Record<string, any>;
};

async function onlyChild(stateMachineArn: string): Promise<string> {
  const { executions } = await sfn().send(new ListExecutionsCommand({ stateMachineArn }));
  expect(executions!.length).toBe(1);
  return executions![0]!.executionArn!;
}

describe('nested state machines through @aws-sdk/client-sfn', () => {
  it('.sync: the parent\'s task output is the child\'s DescribeExecution, Output as JSON text', async () => {
    const child = await createMachine(sfn(), ECHO);
    const parent = await run(parentOf('startExecution.sync', child), { n: 5 });
    const d = await waitClosed(sfn(), parent);
    expect(d.status).toBe('SUCCEEDED');
    const out = JSON.parse(d.output!);
    const childArn = await onlyChild(child);
    expect(out).toMatchObject({ ExecutionArn: childArn, Output: '{"got":5}', Status: 'SUCCEEDED', StateMachineArn: child });
    expect(JSON.parse(out.Input)).toEqual({ n: 5, AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID: parent });
    expect(Number.isInteger(out.StartDate) && Number.isInteger(out.StopDate)).toBe(true);
    const events = await fullHistory(sfn(), parent);
    expect(detailsOf(events, 'TaskScheduled')).toMatchObject({ resourceType: 'states', resource: 'startExecution.sync' });
    expect(JSON.parse(detailsOf(events, 'TaskSucceeded').output)).toEqual(out);
    // As AWS: TaskSubmitted holds StartExecution's answer, recorded before the wait for the child.
    expect(events.map((e) => e.type)).toEqual(['ExecutionStarted', 'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded', 'TaskStateExited', 'ExecutionSucceeded']);
    expect(JSON.parse(detailsOf(events, 'TaskSubmitted').output)).toEqual({ ExecutionArn: childArn, StartDate: out.StartDate });
  }, 30_000);

  it('.sync:2: the same with Input and Output as JSON', async () => {
    const child = await createMachine(sfn(), ECHO);
    const parent = await run(parentOf('startExecution.sync:2', child), { n: 6 });
    const d = await waitClosed(sfn(), parent);
    const out = JSON.parse(d.output!);
    expect(out).toMatchObject({ Output: { got: 6 }, Input: { n: 6, AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID: parent }, Status: 'SUCCEEDED' });
    expect(detailsOf(await fullHistory(sfn(), parent), 'TaskScheduled').resource).toBe('startExecution.sync:2');
  }, 30_000);

  it('request-response: ExecutionArn and StartDate, the parent not waiting for the child', async () => {
    const child = await createMachine(sfn(), WAIT_FOREVER);
    const parent = await run(parentOf('startExecution', child));
    const d = await waitClosed(sfn(), parent);
    const out = JSON.parse(d.output!);
    const childArn = await onlyChild(child);
    expect(Object.keys(out)).toEqual(['ExecutionArn', 'StartDate']);
    expect(out.ExecutionArn).toBe(childArn);
    expect((await sfn().send(new DescribeExecutionCommand({ executionArn: childArn }))).status).toBe('RUNNING');
    await sfn().send(new StopExecutionCommand({ executionArn: childArn }));
  }, 30_000);

  it('request-response from an Express parent: the child starts, named after the parent', async () => {
    const child = await createMachine(sfn(), ECHO);
    const { stateMachineArn: parent } = await sfn().send(new CreateStateMachineCommand({
      name: `express-parent-${Date.now()}`, type: 'EXPRESS', roleArn: 'arn:aws:iam::123456789012:role/r', definition: JSON.stringify(parentOf('startExecution', child)),
    }));
    const d = await sfn().send(new StartSyncExecutionCommand({ stateMachineArn: parent, input: '{"n":4}' }));
    expect([d.status, d.error, d.cause]).toEqual(['SUCCEEDED', undefined, undefined]);
    const childArn = await onlyChild(child);
    expect(JSON.parse(d.output!)).toMatchObject({ ExecutionArn: childArn });
    // `<parent name>.<state>.c1.<hash>`: the Express execution's name, not its ARN's other parts.
    expect(childArn.split(':').at(-1)!.startsWith(`${d.name}.Child.c1.`)).toBe(true);
    const done = await waitClosed(sfn(), childArn);
    expect(JSON.parse(done.output!)).toEqual({ got: 4 });
    expect(JSON.parse(done.input!)).toEqual({ n: 4, AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID: d.executionArn });
  }, 30_000);

  it('a failing child fails the task with States.TaskFailed, caught by the parent\'s Catch', async () => {
    const child = await createMachine(sfn(), FAIL);
    const def = parentOf('startExecution.sync', child, { Catch: [{ ErrorEquals: ['States.TaskFailed'], ResultPath: '$.err', Next: 'Handled' }] }) as { States: object };
    const parent = await run({ ...def, States: { ...def.States, Handled: { Type: 'Pass', End: true } } });
    const d = await waitClosed(sfn(), parent);
    expect(d.status).toBe('SUCCEEDED');
    const err = JSON.parse(d.output!).err;
    expect(err.Error).toBe('States.TaskFailed');
    expect(JSON.parse(err.Cause)).toMatchObject({ Status: 'FAILED', Error: 'Child.Broke', Cause: 'it broke' });
    expect(detailsOf(await fullHistory(sfn(), parent), 'TaskFailed')).toMatchObject({ error: 'States.TaskFailed', resourceType: 'states', resource: 'startExecution.sync' });
  }, 30_000);

  it('StopExecution of the parent stops its .sync child', async () => {
    const child = await createMachine(sfn(), WAIT_FOREVER);
    const parent = await run(parentOf('startExecution.sync', child));
    let childArn = '';
    await until(async () => {
      const { executions } = await sfn().send(new ListExecutionsCommand({ stateMachineArn: child }));
      childArn = executions?.[0]?.executionArn ?? '';
      return childArn !== '';
    }, { message: 'the child to start' });
    await sfn().send(new StopExecutionCommand({ executionArn: parent }));
    const c = await waitClosed(sfn(), childArn);
    expect({ status: c.status, cause: c.cause }).toEqual({
      status: 'ABORTED', cause: `The Task state in AWS Step Functions execution [${parent}] which was managing this resource was aborted`,
    });
  }, 30_000);

  it('.waitForTaskToken: the child\'s worker answers the parent\'s token with SendTaskSuccess', async () => {
    const { activityArn } = await sfn().send(new CreateActivityCommand({ name: `child-work-${process.pid}` }));
    const child = await createMachine(sfn(), { StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } });
    const parent = await run({
      StartAt: 'Child',
      States: {
        Child: {
          Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.waitForTaskToken',
          Parameters: { StateMachineArn: child, Input: { 'token.$': '$$.Task.Token', 'n.$': '$.n' } }, End: true,
        },
      },
    }, { n: 9 });
    const task = await sfn().send(new GetActivityTaskCommand({ activityArn, workerName: 'child-worker' }));
    const input = JSON.parse(task.input!);
    expect(input.n).toBe(9);
    await sfn().send(new SendTaskSuccessCommand({ taskToken: input.token, output: JSON.stringify({ answered: input.n }) }));
    await sfn().send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }));
    const d = await waitClosed(sfn(), parent);
    expect({ status: d.status, output: JSON.parse(d.output!) }).toEqual({ status: 'SUCCEEDED', output: { answered: 9 } });
    expect(JSON.parse(detailsOf(await fullHistory(sfn(), parent), 'TaskSubmitted').output)).toMatchObject({ ExecutionArn: await onlyChild(child) });
  }, 30_000);

  it('a child started through an alias ARN runs the version it routes to', async () => {
    const child = await createMachine(sfn(), ECHO);
    const { stateMachineVersionArn } = await sfn().send(new PublishStateMachineVersionCommand({ stateMachineArn: child }));
    const { stateMachineAliasArn } = await sfn().send(new CreateStateMachineAliasCommand({ name: 'prod', routingConfiguration: [{ stateMachineVersionArn, weight: 100 }] }));
    const parent = await run(parentOf('startExecution.sync:2', stateMachineAliasArn!), { n: 3 });
    const d = await waitClosed(sfn(), parent);
    expect(JSON.parse(d.output!)).toMatchObject({ Output: { got: 3 }, StateMachineAliasArn: stateMachineAliasArn, StateMachineVersionArn: stateMachineVersionArn });
  }, 30_000);

  it(`a machine that starts itself stops ${MAX_CHILD_DEPTH} levels down: StepFunctions.ExecutionLimitExceededException`, async () => {
    const self = await createMachine(sfn(), WAIT_FOREVER);
    const task = { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2', Parameters: { StateMachineArn: self, Input: {} }, End: true };
    await sfn().send(new UpdateStateMachineCommand({ stateMachineArn: self, definition: JSON.stringify({ StartAt: 'Again', States: { Again: task } }) }));
    const { executionArn } = await sfn().send(new StartExecutionCommand({ stateMachineArn: self }));
    const d = await waitClosed(sfn(), executionArn!, 30_000);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.TaskFailed' });
    const { executions } = await sfn().send(new ListExecutionsCommand({ stateMachineArn: self }));
    expect(executions!.length).toBe(MAX_CHILD_DEPTH + 1);
    expect(new Set(executions!.map((e) => e.status))).toEqual(new Set(['FAILED']));
    // The deepest one is refused its child, with the fault the Task reports for a refused StartExecution.
    const deepest = executions!.find((e) => e.name!.includes(`.c${MAX_CHILD_DEPTH}.`))!;
    const failed = await sfn().send(new DescribeExecutionCommand({ executionArn: deepest.executionArn }));
    expect(failed.error).toBe('StepFunctions.ExecutionLimitExceededException');
  }, 40_000);
});
