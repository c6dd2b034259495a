import { SendTaskSuccessCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { FAKE_LAMBDA_KEY, FAKE_LAMBDA_REGION, startFakeLambda } from '../helpers/fake-lambda.js';
import type { LocalHttpServer } from '../helpers/local-http-server.js';
import { createMachine, fullHistory, sfnClient, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

let lambda: LocalHttpServer;
let engine: TestEngine;
let bare: TestEngine;
let sfn: SFNClient;
let bareSfn: SFNClient;
/** Every event the fake's functions received. */
const events: unknown[] = [];

beforeAll(async () => {
  lambda = await startFakeLambda((_name, event) => { events.push(event); });
  engine = await startTestEngine({ http: { port: 0, accessKeys: {} }, node: { sfnLambda: { endpoint: lambda.origin, region: FAKE_LAMBDA_REGION, ...FAKE_LAMBDA_KEY } } });
  sfn = sfnClient(engine.node.http!.port);
  // An engine with no Lambda endpoint configured.
  bare = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  bareSfn = sfnClient(bare.node.http!.port);
}, 30_000);

afterAll(async () => {
  sfn?.destroy();
  bareSfn?.destroy();
  await engine?.stop();
  await bare?.stop();
  await lambda?.stop();
});

async function run(client: SFNClient, definition: object, input: object = {}) {
  const arn = await createMachine(client, definition);
  const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify(input) }));
  return { executionArn: executionArn!, d: await waitClosed(client, executionArn!, 30_000) };
}

const invoke = (fn: string, extra: object = {}) => ({ Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: fn, 'Payload.$': '$' }, ...extra });

describe('the Lambda task through @aws-sdk/client-sfn', () => {
  it('invokes the function and selects its Payload', async () => {
    const { d, executionArn } = await run(sfn, {
      StartAt: 'Invoke',
      States: { Invoke: invoke('arn:aws:lambda:us-east-1:000000000000:function:echo', { ResultSelector: { 'out.$': '$.Payload.got', 'code.$': '$.StatusCode', 'version.$': '$.ExecutedVersion' }, End: true }) },
    }, { order: 42 });
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ out: { order: 42 }, code: 200, version: '$LATEST' });
    const history = await fullHistory(sfn, executionArn);
    expect(history.find((e) => e.type === 'TaskScheduled')!.taskScheduledEventDetails).toMatchObject({ resourceType: 'lambda', resource: 'invoke', region: 'us-east-1' });
    expect(JSON.parse(history.find((e) => e.type === 'TaskSucceeded')!.taskSucceededEventDetails!.output!)).toMatchObject({ Payload: { got: { order: 42 } }, SdkHttpMetadata: { HttpStatusCode: 200 } });
  });

  it("catches the function's own error by its errorType", async () => {
    const { d } = await run(sfn, {
      StartAt: 'Invoke',
      States: {
        Invoke: invoke('boom', { Catch: [{ ErrorEquals: ['BoomError'], ResultPath: '$.failure', Next: 'Handled' }], End: true }),
        Handled: { Type: 'Pass', End: true },
      },
    }, { order: 1 });
    expect(d.status).toBe('SUCCEEDED');
    const out = JSON.parse(d.output!) as { order: number; failure: { Error: string; Cause: string } };
    expect(out.failure.Error).toBe('BoomError');
    expect(JSON.parse(out.failure.Cause)).toMatchObject({ errorType: 'BoomError', errorMessage: 'it broke' });
  });

  it('fails with Lambda.ResourceNotFoundException for a function the endpoint does not have', async () => {
    const { d } = await run(sfn, { StartAt: 'Invoke', States: { Invoke: invoke('nowhere', { End: true }) } });
    expect(d.status).toBe('FAILED');
    expect(d.error).toBe('Lambda.ResourceNotFoundException');
    expect(d.cause).toContain('Function not found');
  });

  it('.waitForTaskToken: the function gets the token and SendTaskSuccess finishes the task', async () => {
    const arn = await createMachine(sfn, {
      StartAt: 'Invoke',
      States: {
        Invoke: {
          Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          Parameters: { FunctionName: 'echo', InvocationType: 'Event', Payload: { 'token.$': '$$.Task.Token', 'key.$': '$.key' } }, End: true,
        },
      },
    });
    const key = `cb-${Date.now()}`;
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify({ key }) }));
    let token: string | undefined;
    await until(() => {
      token = (events.find((e) => (e as { key?: string }).key === key) as { token?: string } | undefined)?.token;
      return token !== undefined;
    }, { timeoutMs: 15_000, message: 'the function to receive the task token' });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify({ done: key }) }));
    const d = await waitClosed(sfn, executionArn!, 30_000);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ done: key });
  });
});

describe('the Lambda task with no endpoint configured', () => {
  it('accepts the definition and fails at run time with a clear error', async () => {
    const { d } = await run(bareSfn, { StartAt: 'Invoke', States: { Invoke: invoke('echo', { End: true }) } });
    expect(d.status).toBe('FAILED');
    expect(d.error).toBe('Lambda.SdkClientException');
    expect(d.cause).toContain('AF_SFN_LAMBDA_ENDPOINT');
  });
});
