import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLambdaTarget, type LambdaTarget } from '../../src/sfn/integrations/lambda-config.js';
import { LambdaInvokeIntegration } from '../../src/sfn/integrations/lambda-invoke.js';
import { readServiceResource, type IntegrationCall } from '../../src/sfn/integrations/integration.js';
import { FAKE_LAMBDA_KEY, FAKE_LAMBDA_REGION, startFakeLambda } from '../helpers/fake-lambda.js';
import { startLocalHttpServer, type LocalHttpServer } from '../helpers/local-http-server.js';

const REGION = FAKE_LAMBDA_REGION;
const ARN = 'arn:aws:lambda:us-east-1:000000000000:function:echo';

let n = 0;
function call(parameters: unknown, resource = 'arn:aws:states:::lambda:invoke', extra: Partial<IntegrationCall> = {}): IntegrationCall {
  return {
    resourceArn: resource, service: readServiceResource(resource)!, parameters,
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:sm:run', stateName: 'Invoke', taskKey: `a#${++n}`,
    signal: new AbortController().signal, ...extra,
  };
}

let server: LocalHttpServer;
let target: LambdaTarget;
let lambda: LambdaInvokeIntegration;

beforeAll(async () => {
  server = await startFakeLambda();
  target = resolveLambdaTarget({ endpoint: server.origin, ...FAKE_LAMBDA_KEY }, {}, REGION)!;
  lambda = new LambdaInvokeIntegration(target);
});
afterAll(async () => { await server?.stop(); });

describe('lambda:invoke against a fake Invoke API', () => {
  it('sends a signed Invoke request and answers AWS output shape', async () => {
    const r = await lambda.invoke(call({ FunctionName: 'echo', Payload: { order: 7 } }));
    expect(r.ok).toBe(true);
    const out = (r as { output: Record<string, unknown> }).output;
    expect(out).toMatchObject({
      ExecutedVersion: '$LATEST', Payload: { got: { order: 7 }, qualifier: null }, StatusCode: 200,
      SdkResponseMetadata: { RequestId: 'req-1' },
      SdkHttpMetadata: { HttpStatusCode: 200, AllHttpHeaders: { 'x-amzn-RequestId': ['req-1'], 'X-Amz-Executed-Version': ['$LATEST'] }, HttpHeaders: { 'x-amzn-RequestId': 'req-1' } },
    });
    const seen = server.seen.at(-1)!;
    expect(seen.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLAMBDATEST\/\d{8}\/us-east-1\/lambda\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/);
    expect(seen.headers['x-amz-invocation-type']).toBe('RequestResponse');
  });

  it('takes a full ARN with a Qualifier, the log tail and a client context', async () => {
    const context = Buffer.from(JSON.stringify({ custom: { a: 1 } })).toString('base64');
    const r = await lambda.invoke(call({ FunctionName: ARN, Qualifier: 'live', LogType: 'Tail', ClientContext: context, Payload: 'text' }));
    expect(r).toMatchObject({ ok: true, output: { Payload: { got: 'text', qualifier: 'live', context }, LogResult: Buffer.from('START\nEND\n').toString('base64') } });
    expect(server.seen.at(-1)!.url).toBe(`/2015-03-31/functions/${encodeURIComponent(ARN)}/invocations?Qualifier=live`);
  });

  it('answers an asynchronous invocation with 202 and an empty payload', async () => {
    const r = await lambda.invoke(call({ FunctionName: 'echo', InvocationType: 'Event', Payload: { token: 't' } }, 'arn:aws:states:::lambda:invoke.waitForTaskToken'));
    expect(r).toMatchObject({ ok: true, output: { StatusCode: 202, Payload: '' } });
  });

  it("fails a function error with the function's errorType and the payload as cause", async () => {
    const r = await lambda.invoke(call({ FunctionName: 'boom' }));
    expect(r).toMatchObject({ ok: false, error: 'BoomError' });
    expect(JSON.parse((r as { cause: string }).cause)).toEqual({ errorType: 'BoomError', errorMessage: 'it broke', trace: [] });
    const crash = await lambda.invoke(call({ FunctionName: 'crash' }));
    expect(crash).toEqual({ ok: false, error: 'Lambda.Unknown', cause: 'Task timed out after 3.00 seconds' });
  });

  it('names Invoke API faults Lambda.<Exception> with the SDK cause text', async () => {
    const missing = await lambda.invoke(call({ FunctionName: 'nothing-here' }));
    expect(missing).toEqual({
      ok: false, error: 'Lambda.ResourceNotFoundException',
      cause: 'Function not found: arn:aws:lambda:us-east-1:000000000000:function:nothing-here (Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; Request ID: req-3; Proxy: null)',
    });
    expect(await lambda.invoke(call({ FunctionName: 'throttled' }))).toMatchObject({ ok: false, error: 'Lambda.TooManyRequestsException' });
    expect(await lambda.invoke(call({ FunctionName: 'broken' }))).toMatchObject({ ok: false, error: 'Lambda.ServiceException' });
  });

  it('a wrong secret is refused by the endpoint and reported as Lambda.AWSLambdaException', async () => {
    const wrong = new LambdaInvokeIntegration({ ...target, credentials: { accessKeyId: 'AKIDLAMBDATEST', secretAccessKey: 'not-it' } });
    const r = await wrong.invoke(call({ FunctionName: 'echo' }));
    expect(r).toMatchObject({ ok: false, error: 'Lambda.AWSLambdaException' });
    expect((r as { cause: string }).cause).toContain('Error Code: InvalidSignatureException');
  });
});

describe('lambda:invoke without a reachable endpoint', () => {
  it('fails at run time with a clear Lambda.SdkClientException when no endpoint is configured', async () => {
    const r = await new LambdaInvokeIntegration(undefined).invoke(call({ FunctionName: 'echo' }));
    expect(r).toMatchObject({ ok: false, error: 'Lambda.SdkClientException' });
    expect((r as { cause: string }).cause).toContain('AF_SFN_LAMBDA_ENDPOINT');
  });

  it('names a connection failure Lambda.SdkClientException', async () => {
    const gone = await startLocalHttpServer(() => {});
    const origin = gone.origin;
    await gone.stop();
    const r = await new LambdaInvokeIntegration({ ...target, endpoint: new URL(origin) }).invoke(call({ FunctionName: 'echo' }));
    expect(r).toMatchObject({ ok: false, error: 'Lambda.SdkClientException' });
  });

  it('refuses a bad FunctionName with Lambda\'s validation wording and sends nothing', async () => {
    const before = server.connections;
    const r = await lambda.invoke(call({ FunctionName: '../../admin' }));
    expect(r).toMatchObject({ ok: false, error: 'Lambda.AWSLambdaException' });
    expect((r as { cause: string }).cause).toContain("at 'functionName' failed to satisfy constraint");
    expect(server.connections).toBe(before);
  });
});

describe('lambda:invoke checks and configuration', () => {
  it('checks literal parameters of a definition', () => {
    expect(lambda.check('invoke', { 'Payload.$': '$' })).toBe("The field 'FunctionName' is required but was missing");
    expect(lambda.check('invoke', { FunctionName: 'f', Extra: 1 })).toBe("The field 'Extra' is not supported by Step Functions");
    expect(lambda.check('invoke', { FunctionName: 'f', InvocationType: 'Later' })).toContain("at 'invocationType' failed to satisfy constraint");
    expect(lambda.check('invoke', { 'FunctionName.$': '$.fn', 'Payload.$': '$' })).toBeUndefined();
    expect(lambda.check('invoke', { FunctionName: '123456789012:function:f:prod' })).toBeUndefined();
  });

  it('resolves the endpoint, region and credentials from the environment', () => {
    expect(resolveLambdaTarget({}, {}, REGION)).toBeUndefined();
    const t = resolveLambdaTarget({}, { AF_SFN_LAMBDA_ENDPOINT: 'http://127.0.0.1:3001', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' }, REGION)!;
    expect([t.endpoint.origin, t.region, t.credentials.accessKeyId]).toEqual(['http://127.0.0.1:3001', 'eu-west-1', 'a']);
    const own = resolveLambdaTarget({}, { AF_SFN_LAMBDA_ENDPOINT: 'http://127.0.0.1:3001', AF_SFN_LAMBDA_ACCESS_KEY_ID: 'o', AF_SFN_LAMBDA_SECRET_ACCESS_KEY: 'os', AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' }, REGION)!;
    expect(own.credentials).toEqual({ accessKeyId: 'o', secretAccessKey: 'os' });
    expect(() => resolveLambdaTarget({}, { AF_SFN_LAMBDA_ENDPOINT: 'http://127.0.0.1:3001' }, REGION)).toThrow(/no credentials/);
    expect(() => resolveLambdaTarget({}, { AF_SFN_LAMBDA_ENDPOINT: 'ftp://x' , AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' }, REGION)).toThrow(/http\(s\) URL/);
  });
});
