import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateActivityCommand, DescribeExecutionCommand, GetActivityTaskCommand, PublishStateMachineVersionCommand, SendTaskSuccessCommand, SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineNode } from '../../src/server.js';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { createMachine, fullHistory, rejection, sfnClient, waitClosed } from '../helpers/sfn-http.js';

/**
 * Mocked tests in Step Functions Local's format, through @aws-sdk/client-sfn: a node started with
 * a mock configuration runs `StartExecution(<stateMachineArn>#<TestCaseName>)` with its Tasks
 * answered from the file. None of the mocked services runs here (no Lambda endpoint, no HTTP host
 * allowed, no child state machine, no activity worker, no subscriber on the publish subject).
 */
const MOCKS = {
  StateMachines: {
    Kinds: { TestCases: { AllMocked: { Activity: 'ActivityDone', Http: 'HttpOk', Lambda: 'LambdaHello', Child: 'ChildDone', Publish: 'Published', Callback: 'Approved' } } },
    Caught: { TestCases: { LambdaFails: { Lambda: 'LambdaServiceError' } } },
    Retrying: { TestCases: { RetryPath: { Lambda: 'LambdaRetry' }, TooFewMocks: { Lambda: 'LambdaFailsThrice' } } },
    Hybrid: { TestCases: { HybridPath: { Lambda: 'LambdaHello' } } },
    Waiting: { TestCases: { A: { Lambda: 'LambdaHello' }, B: { Lambda: 'LambdaServiceError' } } },
  },
  MockedResponses: {
    ActivityDone: { 0: { Return: { worked: true } } },
    HttpOk: { 0: { Return: { StatusCode: 200, StatusText: 'OK', ResponseBody: { id: 7 } } } },
    LambdaHello: { 0: { Return: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } } } },
    ChildDone: { 0: { Return: { Status: 'SUCCEEDED', Output: { child: 'done' } } } },
    Published: { 0: { Return: { Subject: 'af.sfn.out.orders' } } },
    Approved: { 0: { Return: { approved: true } } },
    LambdaServiceError: { 0: { Throw: { Error: 'Lambda.ServiceException', Cause: 'The service is down.' } } },
    LambdaRetry: {
      0: { Throw: { Error: 'Lambda.ResourceNotReadyException', Cause: 'Lambda resource is not ready.' } },
      '1-2': { Throw: { Error: 'Lambda.TimeoutException', Cause: 'Lambda timed out.' } },
      3: { Return: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } } },
    },
    LambdaFailsThrice: {
      0: { Throw: { Error: 'Lambda.ResourceNotReadyException', Cause: 'Lambda resource is not ready.' } },
      '1-2': { Throw: { Error: 'Lambda.TimeoutException', Cause: 'Lambda timed out.' } },
    },
  },
};

const LAMBDA = { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:Hello', 'Payload.$': '$' } };
const RETRY = [{ ErrorEquals: ['Lambda.ResourceNotReadyException', 'Lambda.TimeoutException'], IntervalSeconds: 1, MaxAttempts: 3, BackoffRate: 1 }];
const HTTP = { port: 0, accessKeys: {} };

const env = useNodesOnOneNats();
let dir: string;
let mockFile: string;
let node: EngineNode;
let sfn: SFNClient;
let activityArn: string;
const arns: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'af-mocked-'));
  mockFile = join(dir, 'MockConfigFile.json');
  await writeFile(mockFile, JSON.stringify(MOCKS));
  node = await env.startEngine({ http: HTTP, sfnMockConfig: mockFile });
  sfn = sfnClient(node.http!.port);
  activityArn = (await sfn.send(new CreateActivityCommand({ name: 'work' }))).activityArn!;
  arns.Kinds = await createMachine(sfn, {
    StartAt: 'Activity',
    States: {
      Activity: { Type: 'Task', Resource: activityArn, ResultPath: '$.activity', Next: 'Http' },
      Http: {
        Type: 'Task', Resource: 'arn:aws:states:::http:invoke',
        Parameters: { ApiEndpoint: 'https://api.example.com/orders', Method: 'GET', Authentication: { ConnectionArn: 'arn:aws:events:us-east-1:000000000000:connection/c/1' } },
        ResultSelector: { 'id.$': '$.ResponseBody.id' }, ResultPath: '$.http', Next: 'Lambda',
      },
      Lambda: { ...LAMBDA, ResultSelector: { 'body.$': '$.Payload.body' }, ResultPath: '$.lambda', Next: 'Child' },
      Child: {
        Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2',
        Parameters: { StateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:NoSuchChild', Input: {} },
        ResultSelector: { 'out.$': '$.Output' }, ResultPath: '$.child', Next: 'Publish',
      },
      Publish: { Type: 'Task', Resource: 'arn:actorflow:states:::nats:publish', Parameters: { Subject: 'orders', 'Message.$': '$' }, ResultPath: '$.published', Next: 'Callback' },
      // A callback mocked: its Return is what SendTaskSuccess would have sent; no token is waited for.
      Callback: {
        Type: 'Task', Resource: 'arn:actorflow:states:::nats:publish.waitForTaskToken',
        Parameters: { Subject: 'approvals', Message: { 'token.$': '$$.Task.Token' } }, ResultPath: '$.callback', End: true,
      },
    },
  }, 'Kinds');
  arns.Caught = await createMachine(sfn, {
    StartAt: 'Lambda',
    States: {
      Lambda: { ...LAMBDA, Catch: [{ ErrorEquals: ['Lambda.ServiceException'], ResultPath: '$.err', Next: 'Recovered' }], End: true },
      Recovered: { Type: 'Pass', End: true },
    },
  }, 'Caught');
  arns.Retrying = await createMachine(sfn, { StartAt: 'Lambda', States: { Lambda: { ...LAMBDA, Retry: RETRY, OutputPath: '$.Payload', End: true } } }, 'Retrying');
  arns.Hybrid = await createMachine(sfn, {
    StartAt: 'Lambda',
    States: { Lambda: { ...LAMBDA, OutputPath: '$.Payload', Next: 'Activity' }, Activity: { Type: 'Task', Resource: activityArn, End: true } },
  }, 'Hybrid');
  arns.Waiting = await createMachine(sfn, {
    StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 2, Next: 'Lambda' }, Lambda: { ...LAMBDA, OutputPath: '$.Payload', End: true } },
  }, 'Waiting');
}, 30_000);

afterAll(async () => {
  sfn?.destroy();
  await rm(dir, { recursive: true, force: true });
});

const start = async (target: string, input: object = {}, name?: string) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn: target, input: JSON.stringify(input), ...(name ? { name } : {}) }))).executionArn!;
const eventTypes = async (executionArn: string) => (await fullHistory(sfn, executionArn)).map((e) => e.type ?? '');

describe('a mocked test case for each kind of Task', () => {
  it('runs an activity, http:invoke, lambda:invoke, states:startExecution, nats:publish and a callback from the mocks alone', async () => {
    const published: string[] = [];
    const sub = node.nats.nc.subscribe(`${node.config.prefix}.sfn.out.>`, { callback: (_e, m) => { published.push(m.subject); } });
    const executionArn = await start(`${arns.Kinds}#AllMocked`, { order: 1 }, 'all-mocked');
    const d = await waitClosed(sfn, executionArn);
    sub.unsubscribe();
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({ status: 'SUCCEEDED', error: undefined, cause: undefined });
    expect(JSON.parse(d.output!)).toEqual({
      order: 1, activity: { worked: true }, http: { id: 7 }, lambda: { body: 'Hello from Lambda!' }, child: { out: { child: 'done' } },
      published: { Subject: 'af.sfn.out.orders' }, callback: { approved: true },
    });
    // DescribeExecution names the state machine without the test case, as Step Functions Local does.
    expect({ sm: d.stateMachineArn, arn: d.executionArn }).toEqual({ sm: arns.Kinds, arn: arns.Kinds.replace(':stateMachine:', ':execution:') + ':all-mocked' });
    const types = await eventTypes(executionArn);
    // The activity as a worker would have run it, the service Tasks as their services would have answered.
    expect(types.filter((t) => t.startsWith('Activity'))).toEqual(['ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded']);
    expect(types.filter((t) => t === 'TaskSucceeded').length).toBe(5);
    expect(types).not.toContain('TaskSubmitted');
    expect(published).toEqual([]);
  }, 30_000);

  it('a Throw is the Task\'s error: Catch takes it with its Error and Cause', async () => {
    const d = await waitClosed(sfn, await start(`${arns.Caught}#LambdaFails`, { n: 1 }));
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ n: 1, err: { Error: 'Lambda.ServiceException', Cause: 'The service is down.' } });
  }, 30_000);

  it('a retried state consumes "0", then "1-2", then "3"', async () => {
    const executionArn = await start(`${arns.Retrying}#RetryPath`);
    const d = await waitClosed(sfn, executionArn, 30_000);
    expect({ status: d.status, output: d.output }).toEqual({ status: 'SUCCEEDED', output: JSON.stringify({ StatusCode: 200, body: 'Hello from Lambda!' }) });
    const h = await fullHistory(sfn, executionArn);
    expect(h.filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails!.error))
      .toEqual(['Lambda.ResourceNotReadyException', 'Lambda.TimeoutException', 'Lambda.TimeoutException']);
    expect(h.filter((e) => e.type === 'TaskScheduled').length).toBe(4);
  }, 40_000);

  it('an invocation past the last mocked one fails the execution with States.Runtime', async () => {
    const d = await waitClosed(sfn, await start(`${arns.Retrying}#TooFewMocks`), 30_000);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.Runtime' });
    expect(d.cause).toContain("The mocked response 'LambdaFailsThrice' of state 'Lambda' in test case 'TooFewMocks' has no entry for invocation 3.");
  }, 40_000);

  it('a state the test case does not name runs for real (HybridPath: the activity goes to its worker)', async () => {
    const executionArn = await start(`${arns.Hybrid}#HybridPath`, {});
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'w' }));
    expect(JSON.parse(task.input!)).toEqual({ StatusCode: 200, body: 'Hello from Lambda!' });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken!, output: '{"real":true}' }));
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, output: d.output }).toEqual({ status: 'SUCCEEDED', output: '{"real":true}' });
  }, 30_000);
});

describe('choosing a test case', () => {
  it('refuses a test case the state machine does not have, and a state machine the file does not name', async () => {
    const e = await rejection(start(`${arns.Kinds}#NoSuchCase`));
    expect({ name: e.name, message: e.message }).toEqual({
      name: 'InvalidName', message: "Invalid mock test case name 'NoSuchCase' for state machine 'Kinds': the mock configuration does not define it.",
    });
    expect((await rejection(start(`${arns.Kinds}#HybridPath`))).name).toBe('InvalidName');
    expect((await rejection(start(`${arns.Kinds}#`))).name).toBe('InvalidName');
    expect((await rejection(start(`${arns.Kinds.replace(/:Kinds$/, ':Gone')}#AllMocked`))).name).toBe('StateMachineDoesNotExist');
  });

  it('takes a test case on a version ARN too: the test case belongs to the state machine', async () => {
    const { stateMachineVersionArn } = await sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: arns.Caught }));
    const d = await waitClosed(sfn, await start(`${stateMachineVersionArn}#LambdaFails`, { v: 1 }));
    expect({ status: d.status, sm: d.stateMachineArn, version: d.stateMachineVersionArn }).toEqual({ status: 'SUCCEEDED', sm: arns.Caught, version: stateMachineVersionArn });
    expect(JSON.parse(d.output!)).toMatchObject({ err: { Error: 'Lambda.ServiceException' } });
  }, 30_000);

  it('runs the state machine as written without a test case (no Lambda is configured, so its Lambda Task fails)', async () => {
    const d = await waitClosed(sfn, await start(arns.Caught));
    expect(d.status).toBe('FAILED');
  }, 30_000);

  it('a second start of the same name and input is the same start only with the same test case', async () => {
    const first = await start(`${arns.Waiting}#A`, { k: 1 }, 'twice');
    expect(await start(`${arns.Waiting}#A`, { k: 1 }, 'twice')).toBe(first);
    expect((await rejection(start(`${arns.Waiting}#B`, { k: 1 }, 'twice'))).name).toBe('ExecutionAlreadyExists');
    expect((await rejection(start(arns.Waiting, { k: 1 }, 'twice'))).name).toBe('ExecutionAlreadyExists');
    expect((await waitClosed(sfn, first)).status).toBe('SUCCEEDED');
  }, 30_000);
});

describe('the mock configuration and the node', () => {
  it('a file that cannot be used stops the node from starting, naming the problem', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ StateMachines: { M: { TestCases: { T: { S: 'Missing' } } } }, MockedResponses: {} }));
    await expect(env.startEngine({ sfnMockConfig: bad })).rejects.toThrow(
      `mock configuration ${bad}: StateMachines.M.TestCases.T.S names the mocked response "Missing", which MockedResponses does not define`);
    await expect(env.startEngine({ sfnMockConfig: join(dir, 'absent.json') })).rejects.toThrow(/cannot be read \(ENOENT/);
  });

  it('an execution keeps its test case across a restart of the engine', async () => {
    const executionArn = await start(`${arns.Waiting}#A`, {}, 'across-restart');
    sfn.destroy();
    await node.stop();
    env.nodes.splice(env.nodes.indexOf(node), 1);
    node = await env.startEngine({ http: HTTP, sfnMockConfig: mockFile });
    sfn = sfnClient(node.http!.port);
    const d = await waitClosed(sfn, executionArn, 30_000);
    expect({ status: d.status, output: d.output }).toEqual({ status: 'SUCCEEDED', output: JSON.stringify({ StatusCode: 200, body: 'Hello from Lambda!' }) });
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).stateMachineArn).toBe(arns.Waiting);
  }, 60_000);

  it('without a mock configuration, a `#` in the ARN is an InvalidArn, as on AWS', async () => {
    sfn.destroy();
    await node.stop();
    env.nodes.splice(env.nodes.indexOf(node), 1);
    node = await env.startEngine({ http: HTTP });
    sfn = sfnClient(node.http!.port);
    const e = await rejection(start(`${arns.Kinds}#AllMocked`));
    expect({ name: e.name, message: e.message }).toEqual({ name: 'InvalidArn', message: `Invalid Arn: '${arns.Kinds}#AllMocked'` });
  }, 30_000);
});
