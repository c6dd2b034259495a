import { ListDomainsCommand, RegisterDomainCommand, SWFClient, SWFServiceException, type SWFClientConfig } from '@aws-sdk/client-swf';
import { ListActivitiesCommand, SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { signSigV4 } from '../../src/transport/sigv4.js';
import { rawCall, REGION, swfClient, type RawAnswer } from '../helpers/swf-http.js';

const KEY = { accessKeyId: 'AKIDGATEWAYTEST', secretAccessKey: 'right-secret/+=' };
const WRONG_SECRET = { ...KEY, secretAccessKey: 'wrong-secret' };
const UNKNOWN_KEY = { accessKeyId: 'AKIDNOBODY', secretAccessKey: KEY.secretAccessKey };

let e: TestEngine;
let port: number;
beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: { [KEY.accessKeyId]: KEY.secretAccessKey } } });
  port = e.node.http!.port;
});
afterAll(async () => { await e?.stop(); });

/** The Step Functions SDK client: it signs with the name `states` and calls `AWSStepFunctions.*` targets. */
function statesClient(credentials: typeof KEY): SFNClient {
  return new SFNClient({ endpoint: `http://127.0.0.1:${port}`, region: REGION, credentials, maxAttempts: 1 });
}

async function statesError(client: SFNClient): Promise<any> {
  try {
    await client.send(new ListActivitiesCommand({}));
  } catch (err) {
    return err;
  } finally {
    client.destroy();
  }
  throw new Error('expected the call to fail');
}

async function sdkError(client: SWFClient, command: ListDomainsCommand | RegisterDomainCommand = new ListDomainsCommand({ registrationStatus: 'REGISTERED' })): Promise<any> {
  try {
    await client.send(command as ListDomainsCommand);
  } catch (err) {
    return err;
  } finally {
    client.destroy();
  }
  throw new Error('expected the call to fail');
}

function expectRefused(a: RawAnswer, type: string, message?: RegExp): void {
  expect({ status: a.status, type: a.json?.__type }).toEqual({ status: 403, type });
  expect(a.headers.get('x-amzn-errortype')).toBeNull();
  if (message) expect(a.json.message).toMatch(message);
}

const SIGNING = [
  { service: 'swf', target: 'SimpleWorkflowService.ListDomains', body: '{"registrationStatus":"REGISTERED"}' },
  { service: 'states', target: 'AWSStepFunctions.ListActivities', body: '{}' },
] as const;

describe('SigV4 on the HTTP gateway (access keys configured)', () => {
  it('accepts the AWS SDK signing with the right secret', async () => {
    const client = swfClient(port, KEY);
    try {
      const name = uniqueDomain('signed');
      await client.send(new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }));
      const list = await client.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }));
      expect(list.domainInfos!.map((d) => d.name)).toContain(name);
    } finally {
      client.destroy();
    }
  });

  it('refuses a wrong secret (InvalidSignatureException) and an unknown key (UnrecognizedClientException), writing nothing', async () => {
    const name = uniqueDomain('refused');
    const wrong = await sdkError(swfClient(port, WRONG_SECRET), new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }));
    expect(wrong).toBeInstanceOf(SWFServiceException);
    expect([wrong.name, wrong.$metadata.httpStatusCode, wrong.$metadata.attempts]).toEqual(['InvalidSignatureException', 403, 1]);
    expect(wrong.message).toMatch(/signature we calculated does not match/);
    const unknown = await sdkError(swfClient(port, UNKNOWN_KEY), new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }));
    expect([unknown.name, unknown.$metadata.httpStatusCode]).toEqual(['UnrecognizedClientException', 403]);
    const client = swfClient(port, KEY);
    try {
      const list = await client.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }));
      expect(list.domainInfos!.map((d) => d.name)).not.toContain(name);
    } finally {
      client.destroy();
    }
  });

  it('lets the SDK correct a skewed clock from the answer\'s Date header', async () => {
    const skewed = new SWFClient({ endpoint: `http://127.0.0.1:${port}`, region: REGION, credentials: KEY, maxAttempts: 1, systemClockOffset: -20 * 60_000 });
    const expired = await sdkError(skewed);
    expect(expired.name).toBe('InvalidSignatureException');
    expect(expired.message).toMatch(/^Signature expired: \d{8}T\d{6}Z is now earlier than/);
    const retrying = new SWFClient({ endpoint: `http://127.0.0.1:${port}`, region: REGION, credentials: KEY, maxAttempts: 2, systemClockOffset: -20 * 60_000 });
    try {
      const ok = await retrying.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }));
      expect(ok.$metadata.attempts).toBe(2);
    } finally {
      retrying.destroy();
    }
  });

  it('checks the Step Functions signing name `states` the same way (through the SDK signer)', async () => {
    const ok = statesClient(KEY);
    try {
      expect((await ok.send(new ListActivitiesCommand({}))).activities).toEqual([]);
    } finally {
      ok.destroy();
    }
    expect((await statesError(statesClient(WRONG_SECRET))).name).toBe('InvalidSignatureException');
    expect((await statesError(statesClient(UNKNOWN_KEY))).name).toBe('UnrecognizedClientException');
  });

  for (const s of SIGNING) {
    it(`refuses missing, malformed, wrong, unknown, expired, future and mis-scoped signatures for \`${s.service}\``, async () => {
      const call = (r: Partial<Parameters<typeof rawCall>[1]>) => rawCall(port, { target: s.target, body: s.body, ...r });
      const right = await call({ sign: { ...KEY, service: s.service } });
      expect(right.status).toBe(200);
      expectRefused(await call({}), 'MissingAuthenticationTokenException', /Missing Authentication Token/);
      expectRefused(await call({ headers: { authorization: 'AWS4-HMAC-SHA256 Credential=AKIDGATEWAYTEST' } }), 'IncompleteSignatureException');
      expectRefused(await call({ headers: { authorization: 'Bearer abc' } }), 'IncompleteSignatureException');
      expectRefused(await call({ sign: { ...WRONG_SECRET, service: s.service } }), 'InvalidSignatureException', /does not match/);
      expectRefused(await call({ sign: { ...UNKNOWN_KEY, service: s.service } }), 'UnrecognizedClientException', /security token included in the request is invalid/);
      expectRefused(await call({ sign: { ...KEY, service: s.service, now: Date.now() - 20 * 60_000 } }), 'InvalidSignatureException', /^Signature expired: /);
      expectRefused(await call({ sign: { ...KEY, service: s.service, now: Date.now() + 20 * 60_000 } }), 'InvalidSignatureException', /^Signature not yet current: /);
      const other = s.service === 'swf' ? 'states' : 'swf';
      expectRefused(await call({ sign: { ...KEY, service: other } }), 'InvalidSignatureException', new RegExp(`scoped to correct service: '${s.service}'`));
    });
  }

  it('refuses a signed SignalWorkflowExecution replayed as TerminateWorkflowExecution (X-Amz-Target unsigned), and a foreign region', async () => {
    const domain = uniqueDomain('replay');
    await e.client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    await e.client.call('RegisterWorkflowType', { domain, name: 'wf', version: '1', defaultTaskList: { name: 'tl' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60' });
    const { runId } = await e.client.call('StartWorkflowExecution', { domain, workflowId: 'w', workflowType: { name: 'wf', version: '1' } });
    const body = JSON.stringify({ domain, workflowId: 'w', signalName: 'go' });
    // Signed without the target: what a captured request would give an attacker to retarget.
    const signedHeaders = { host: [`127.0.0.1:${port}`], 'content-type': ['application/x-amz-json-1.0'] };
    const auth = signSigV4({ method: 'POST', path: '/', query: '', body: Buffer.from(body), headers: signedHeaders }, KEY, { region: REGION, service: 'swf' });
    for (const action of ['TerminateWorkflowExecution', 'SignalWorkflowExecution']) {
      const replayed = await rawCall(port, { target: `SimpleWorkflowService.${action}`, body, headers: auth });
      expectRefused(replayed, 'InvalidSignatureException', /^'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization\.$/);
    }
    const run = await e.client.call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'w', runId } });
    expect(run.executionInfo.executionStatus).toBe('OPEN');
    const signal = (region: string) => {
      const headers = { ...signedHeaders, 'x-amz-target': ['SimpleWorkflowService.SignalWorkflowExecution'] };
      const a = signSigV4({ method: 'POST', path: '/', query: '', body: Buffer.from(body), headers }, KEY, { region, service: 'swf' });
      return rawCall(port, { target: 'SimpleWorkflowService.SignalWorkflowExecution', body, headers: a });
    };
    expectRefused(await signal('eu-west-1'), 'InvalidSignatureException', /^Credential should be scoped to a valid region, not 'eu-west-1'\.$/);
    const foreignSdk = new SWFClient({ endpoint: `http://127.0.0.1:${port}`, region: 'ap-south-1', credentials: KEY, maxAttempts: 1 });
    expect((await sdkError(foreignSdk)).message).toMatch(/scoped to a valid region, not 'ap-south-1'/);
    expect((await signal(REGION)).status).toBe(200);
    const events = (await e.client.history(domain, { workflowId: 'w', runId })).map((x) => x.eventType);
    expect(events.filter((t) => t === 'WorkflowExecutionSignaled')).toHaveLength(1);
  });

  it('refuses a body changed after signing', async () => {
    const body = '{"registrationStatus":"REGISTERED"}';
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'SimpleWorkflowService.ListDomains' };
    const auth = signSigV4({ method: 'POST', path: '/', query: '', body: Buffer.from(body), headers: { host: [`127.0.0.1:${port}`], ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])) } },
      KEY, { region: REGION, service: 'swf' });
    const tampered = await rawCall(port, { body: '{"registrationStatus":"DEPRECATED"}', headers: { ...headers, ...auth } });
    expectRefused(tampered, 'InvalidSignatureException', /x-amz-content-sha256/);
    const { 'x-amz-content-sha256': _, ...noHash } = auth;
    expectRefused(await rawCall(port, { body: '{"registrationStatus":"DEPRECATED"}', headers: { ...headers, ...noHash } }), 'InvalidSignatureException', /does not match/);
    expect((await rawCall(port, { body, headers: { ...headers, ...auth } })).status).toBe(200);
  });
});
