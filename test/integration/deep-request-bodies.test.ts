import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_DEPTH, nestingDepth } from '../../src/protocol/nesting.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { rawCall } from '../helpers/swf-http.js';

/**
 * A request body nested thousands of levels deep (in a member the operation reads, or in one it
 * does not know) overflowed the stack in some operations' walks of their input: HTTP 500
 * InternalFailure. Either transport now refuses a body nested past MAX_REQUEST_DEPTH with
 * SerializationException before any operation sees it, and the node goes on serving.
 */
const nested = (depth: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};
const deepJson = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const TOO_DEEP = { __type: 'SerializationException', message: `Request body is nested deeper than ${MAX_REQUEST_DEPTH} levels` };

let e: TestEngine;
let port: number;
const swf = (action: string, body: string) => rawCall(port, { target: `SimpleWorkflowService.${action}`, body });
const sfn = (action: string, body: string) => rawCall(port, { target: `AWSStepFunctions.${action}`, body });

beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  port = Number(new URL(e.node.http!.url).port);
});
afterAll(async () => { await e?.stop(); });

describe('request bodies nested too deep', () => {
  it('counts depth without recursion, binary as a leaf', () => {
    expect(nestingDepth(nested(100_000))).toBe(100_000);
    expect(nestingDepth({ a: [new Uint8Array(4)] })).toBe(2);
    expect(nestingDepth('x')).toBe(0);
  });

  it('are refused over HTTP with SerializationException, whichever member holds them', async () => {
    const domain = uniqueDomain('deep');
    expect((await swf('RegisterDomain', JSON.stringify({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }))).status).toBe(200);
    const arn = 'arn:aws:states:us-east-1:123456789012:stateMachine:nope';
    const bodies: [typeof swf, string, string][] = [
      [swf, 'DeprecateDomain', `{"name":"${domain}","zzz":${deepJson(5000)}}`],
      [swf, 'UndeprecateActivityType', `{"domain":"${domain}","activityType":{"name":"a","version":"1"},"zzz":${deepJson(5000)}}`],
      [swf, 'StartWorkflowExecution', `{"domain":"${domain}","workflowId":"w","workflowType":${deepJson(100_000)}}`],
      [sfn, 'DeleteStateMachine', `{"stateMachineArn":${deepJson(5000)}}`],
      [sfn, 'TagResource', `{"resourceArn":"${arn}","tags":${deepJson(5000)}}`],
      [sfn, 'PublishStateMachineVersion', `{"stateMachineArn":${deepJson(MAX_REQUEST_DEPTH)}}`],
    ];
    for (const [call, action, body] of bodies) {
      const r = await call(action, body);
      expect([action, r.status, r.json]).toEqual([action, 400, TOO_DEEP]);
    }
    // The domain was not deprecated, and the node serves.
    const d = await swf('DescribeDomain', JSON.stringify({ name: domain }));
    expect([d.status, d.json.domainInfo.status]).toEqual([200, 'REGISTERED']);
  });

  it('at the limit are the operation\'s to judge', async () => {
    // MAX_REQUEST_DEPTH levels: the body itself is one, the member's array the rest.
    const r = await sfn('DeleteStateMachine', `{"stateMachineArn":${deepJson(MAX_REQUEST_DEPTH - 1)}}`);
    expect([r.status, r.json]).toEqual([400, { __type: 'SerializationException', message: "Expected string at 'stateMachineArn'" }]);
  });

  it('are refused over NATS with SerializationException', async () => {
    await expect(e.client.call('ListDomains', { registrationStatus: 'REGISTERED', zzz: nested(200) }))
      .rejects.toMatchObject({ name: TOO_DEEP.__type, message: TOO_DEEP.message });
    await expect(e.client.call('ListDomains', { registrationStatus: 'REGISTERED' })).resolves.toHaveProperty('domainInfos');
  });
});
