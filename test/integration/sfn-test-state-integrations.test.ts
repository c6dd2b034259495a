import { ValidationException } from '@aws-sdk/client-sfn';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection } from '../helpers/sfn-http.js';
import { parsedInspection, testStateClientForFile } from '../helpers/sfn-test-state.js';

const client = testStateClientForFile();
const testState = client.run;
let nc: NatsConnection;
beforeAll(async () => { nc = await connect({ servers: client.natsUrl }); });
afterAll(async () => { await nc?.close(); });

const ROLE = 'arn:aws:iam::000000000000:role/sfn-test';
const PUBLISH = 'arn:actorflow:states:::nats:publish';

describe('TestState: a service integration Task', () => {
  it('without a mock, a request-response integration is invoked once: nats:publish sends the message', async () => {
    const sub = nc.subscribe('af.sfn.out.teststate.orders', { max: 1 });
    const got = (async () => { for await (const m of sub) return m.json<unknown>(); return undefined; })();
    const def = { Type: 'Task', Resource: PUBLISH, Parameters: { Subject: 'teststate.orders', 'Message.$': '$.order' }, ResultPath: '$.sent', End: true };
    const out = await testState(def, { json: { order: { id: 3 } }, roleArn: ROLE, inspectionLevel: 'DEBUG' });
    expect(out.status).toBe('SUCCEEDED');
    expect(JSON.parse(out.output!)).toEqual({ order: { id: 3 }, sent: { Subject: 'af.sfn.out.teststate.orders' } });
    expect(parsedInspection(out)).toMatchObject({ afterParameters: { Subject: 'teststate.orders', Message: { id: 3 } }, result: { Subject: 'af.sfn.out.teststate.orders' } });
    expect(await got).toEqual({ id: 3 });
  });

  it('the integration\'s error meets Retry and Catch as in an execution (States.Runtime: neither takes it)', async () => {
    const def = { Type: 'Task', Resource: PUBLISH, Parameters: { Subject: 'not a subject', Message: 1 }, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Oops' }], End: true };
    const out = await testState(def, { json: {}, roleArn: ROLE });
    expect(out).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(out.cause).toContain("The Subject 'not a subject' is not a literal subject");
  });

  it('a callback needs a mock (as AWS); with one, `$$.Task.Token` is there for the parameters', async () => {
    const def = { Type: 'Task', Resource: `${PUBLISH}.waitForTaskToken`, Parameters: { Subject: 'teststate.cb', Message: { 'token.$': '$$.Task.Token' } }, End: true };
    const err = await rejection(testState(def, { json: {}, roleArn: ROLE }));
    expect(err).toBeInstanceOf(ValidationException);
    expect(err.message).toContain('.waitForTaskToken');
    const out = await testState(def, { json: {}, mock: { result: '{"approved":true}' }, inspectionLevel: 'DEBUG' });
    expect(out).toMatchObject({ status: 'SUCCEEDED', output: '{"approved":true}' });
    expect((parsedInspection(out).afterParameters as { Message: { token: string } }).Message.token).toMatch(/\S{8,}/);
  });

  it('lambda:invoke with no Lambda endpoint configured fails as in an execution; a mock answers for it', async () => {
    const def = { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: 'f', 'Payload.$': '$' }, End: true };
    const unmocked = await testState(def, { json: {}, roleArn: ROLE });
    expect(unmocked.status).toBe('FAILED');
    expect(unmocked.error).toMatch(/\S/);
    const out = await testState(def, { json: { a: 1 }, mock: { result: '{"Payload":{"statusCode":200}}' } });
    expect(out).toMatchObject({ status: 'SUCCEEDED', output: '{"Payload":{"statusCode":200}}' });
  });
});
