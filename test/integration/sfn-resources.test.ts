import {
  ActivityDoesNotExist, CreateActivityCommand, CreateStateMachineCommand, DeleteActivityCommand, DeleteStateMachineCommand,
  DescribeActivityCommand, DescribeStateMachineCommand, InvalidArn, InvalidDefinition, InvalidName, InvalidToken,
  ListActivitiesCommand, ListStateMachinesCommand, paginateListActivities, paginateListStateMachines, SFNClient,
  SFNServiceException, StateMachineAlreadyExists, StateMachineDoesNotExist, TooManyTags, UpdateStateMachineCommand,
  ValidationException,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFault } from '../../src/protocol/faults.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { ANY_CREDENTIALS, rawCall, REGION } from '../helpers/swf-http.js';

let e: TestEngine;
let sfn: SFNClient;
let port: number;
beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  port = e.node.http!.port;
  sfn = new SFNClient({ endpoint: `http://127.0.0.1:${port}`, region: REGION, credentials: ANY_CREDENTIALS, maxAttempts: 1 });
});
afterAll(async () => {
  sfn?.destroy();
  await e?.stop();
});

const ACCOUNT = '000000000000';
const ARN = `arn:aws:states:${REGION}:${ACCOUNT}`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/sfn-test`;
const PASS = JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', End: true } } });
const PASS2 = JSON.stringify({ StartAt: 'B', States: { B: { Type: 'Pass', Result: 1, End: true } } });
let seq = 0;
const fresh = (label: string) => `${label}-${process.pid}-${++seq}`;

async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected the call to fail');
}

/** The SDK error is the modeled exception class (so `name` is the AWS fault name) and carries a message. */
async function expectFault(p: Promise<unknown>, cls: abstract new (...a: any[]) => SFNServiceException): Promise<any> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(cls);
  expect(err.$metadata.httpStatusCode).toBe(400);
  expect(typeof err.message).toBe('string');
  return err;
}

const activityNames = async () => ((await sfn.send(new ListActivitiesCommand({ maxResults: 1000 }))).activities ?? []).map((a) => a.name);
const machineNames = async () => ((await sfn.send(new ListStateMachinesCommand({ maxResults: 1000 }))).stateMachines ?? []).map((m) => m.name);

describe('activities over HTTP (AWS SDK)', () => {
  it('creates, describes and deletes an activity; create is idempotent by name', async () => {
    const name = fresh('act');
    const a = await sfn.send(new CreateActivityCommand({ name, tags: [{ key: 'team', value: 'orders' }] }));
    expect(a.activityArn).toBe(`${ARN}:activity:${name}`);
    expect(a.creationDate).toBeInstanceOf(Date);
    const again = await sfn.send(new CreateActivityCommand({ name }));
    expect({ arn: again.activityArn, at: again.creationDate?.getTime() }).toEqual({ arn: a.activityArn, at: a.creationDate!.getTime() });
    const d = await sfn.send(new DescribeActivityCommand({ activityArn: a.activityArn }));
    expect({ activityArn: d.activityArn, name: d.name, creationDate: d.creationDate?.getTime() })
      .toEqual({ activityArn: a.activityArn, name, creationDate: a.creationDate!.getTime() });
    await sfn.send(new DeleteActivityCommand({ activityArn: a.activityArn }));
    await expectFault(sfn.send(new DescribeActivityCommand({ activityArn: a.activityArn })), ActivityDoesNotExist);
    await sfn.send(new DeleteActivityCommand({ activityArn: a.activityArn })); // missing: success, as on AWS
    expect(await activityNames()).not.toContain(name);
  });

  it('lists activities sorted by name; pages concatenate to the whole list', async () => {
    const prefix = fresh('page');
    const names = ['e', 'a', 'c', 'b', 'd'].map((x) => `${prefix}-${x}`);
    for (const name of names) await sfn.send(new CreateActivityCommand({ name }));
    const all: string[] = [];
    let pages = 0;
    for await (const p of paginateListActivities({ client: sfn, pageSize: 2 }, {})) {
      pages++;
      expect(p.activities!.length).toBeLessThanOrEqual(2);
      for (const a of p.activities!) {
        expect(a.activityArn).toBe(`${ARN}:activity:${a.name}`);
        expect(a.creationDate).toBeInstanceOf(Date);
        all.push(a.name!);
      }
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((n) => n.startsWith(prefix))).toEqual([...names].sort());
    // maxResults 0 means the default page (100), and the last page has no token
    const whole = await sfn.send(new ListActivitiesCommand({ maxResults: 0 }));
    expect(whole.activities!.map((a) => a.name)).toEqual(all);
    expect(whole.nextToken).toBeUndefined();
  });

  it('answers bad input with the exact fault and writes nothing', async () => {
    const before = await activityNames();
    for (const name of ['has space', 'a:b', 'x'.repeat(81), '', 'semi;colon', 'tab\tname', 'ctl\u0001', 'star*']) {
      await expectFault(sfn.send(new CreateActivityCommand({ name })), InvalidName);
    }
    await expectFault(sfn.send(new CreateActivityCommand({} as any)), ValidationException);
    const tags = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    await expectFault(sfn.send(new CreateActivityCommand({ name: fresh('tags'), tags })), TooManyTags);
    await expectFault(sfn.send(new CreateActivityCommand({ name: fresh('tags'), tags: [{ key: 'k'.repeat(129), value: 'v' }] })), ValidationException);
    await expectFault(sfn.send(new CreateActivityCommand({ name: fresh('tags'), tags: [{ key: 'k', value: 'v'.repeat(257) }] })), ValidationException);
    expect(await activityNames()).toEqual(before);

    for (const activityArn of ['nope', `${ARN}:stateMachine:x`, `${ARN}:activity:`, `${ARN}:activity:a b`, `arn:aws:states:${REGION}:123:activity:x`]) {
      await expectFault(sfn.send(new DescribeActivityCommand({ activityArn })), InvalidArn);
      await expectFault(sfn.send(new DeleteActivityCommand({ activityArn })), InvalidArn);
    }
    await expectFault(sfn.send(new DescribeActivityCommand({} as any)), ValidationException);
    // Well formed, but another account's or an unknown name: does not exist here
    const name = fresh('other');
    await sfn.send(new CreateActivityCommand({ name }));
    await expectFault(sfn.send(new DescribeActivityCommand({ activityArn: `arn:aws:states:${REGION}:111122223333:activity:${name}` })), ActivityDoesNotExist);
    await expectFault(sfn.send(new DescribeActivityCommand({ activityArn: `arn:aws:states:eu-west-1:${ACCOUNT}:activity:${name}` })), ActivityDoesNotExist);
    await sfn.send(new DeleteActivityCommand({ activityArn: `arn:aws:states:${REGION}:111122223333:activity:${name}` }));
    expect((await sfn.send(new DescribeActivityCommand({ activityArn: `${ARN}:activity:${name}` }))).name).toBe(name);

    await expectFault(sfn.send(new ListActivitiesCommand({ nextToken: 'not-a-token' })), InvalidToken);
    const smToken = (await listMachinesToken());
    if (smToken) await expectFault(sfn.send(new ListActivitiesCommand({ nextToken: smToken })), InvalidToken);
    await expectFault(sfn.send(new ListActivitiesCommand({ maxResults: 1001 })), ValidationException);
    await expectFault(sfn.send(new ListActivitiesCommand({ maxResults: -1 })), ValidationException);
  });
});

/** A ListStateMachines token (made when there are at least two machines), to show tokens are per list. */
async function listMachinesToken(): Promise<string | undefined> {
  for (const name of [fresh('tok'), fresh('tok')]) await sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE }));
  return (await sfn.send(new ListStateMachinesCommand({ maxResults: 1 }))).nextToken;
}

describe('state machines over HTTP (AWS SDK)', () => {
  it('creates, describes, updates and deletes a state machine', async () => {
    const name = fresh('sm');
    const c = await sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE, type: 'STANDARD', tags: [{ key: 'a', value: 'b' }] }));
    expect(c.stateMachineArn).toBe(`${ARN}:stateMachine:${name}`);
    expect(c.creationDate).toBeInstanceOf(Date);
    const again = await sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE }));
    expect({ arn: again.stateMachineArn, at: again.creationDate?.getTime() }).toEqual({ arn: c.stateMachineArn, at: c.creationDate!.getTime() });
    const d = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineArn }));
    expect({ ...d, $metadata: undefined, creationDate: d.creationDate?.getTime(), revisionId: undefined }).toEqual({
      $metadata: undefined, stateMachineArn: c.stateMachineArn, name, status: 'ACTIVE', definition: PASS, roleArn: ROLE,
      type: 'STANDARD', creationDate: c.creationDate!.getTime(), revisionId: undefined, loggingConfiguration: { level: 'OFF', includeExecutionData: false },
    });
    expect(d.revisionId).toMatch(/^[0-9a-f-]{36}$/);

    const role2 = `arn:aws:iam::${ACCOUNT}:role/path/other-role`;
    const u = await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: PASS2 }));
    expect(u.updateDate).toBeInstanceOf(Date);
    expect(u.revisionId).not.toBe(d.revisionId);
    const u2 = await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, roleArn: role2 }));
    const d2 = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineArn }));
    expect({ definition: d2.definition, roleArn: d2.roleArn, revisionId: d2.revisionId, created: d2.creationDate?.getTime() })
      .toEqual({ definition: PASS2, roleArn: role2, revisionId: u2.revisionId, created: c.creationDate!.getTime() });
    // The old definition is no longer "the same input": StateMachineAlreadyExists
    await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE })), StateMachineAlreadyExists);
    await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition: PASS2, roleArn: ROLE })), StateMachineAlreadyExists);
    expect((await sfn.send(new CreateStateMachineCommand({ name, definition: PASS2, roleArn: role2 }))).stateMachineArn).toBe(c.stateMachineArn);

    await sfn.send(new DeleteStateMachineCommand({ stateMachineArn: c.stateMachineArn }));
    await expectFault(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineArn })), StateMachineDoesNotExist);
    await expectFault(sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: PASS })), StateMachineDoesNotExist);
    await sfn.send(new DeleteStateMachineCommand({ stateMachineArn: c.stateMachineArn })); // missing: success
    expect(await machineNames()).not.toContain(name);
    // The name is free again
    expect((await sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE }))).stateMachineArn).toBe(c.stateMachineArn);
  });

  it('lists state machines sorted by name; pages concatenate to the whole list', async () => {
    const prefix = fresh('smpage');
    const names = ['c', 'a', 'b'].map((x) => `${prefix}-${x}`);
    for (const name of names) await sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE }));
    const all: { stateMachineArn?: string; name?: string; type?: string; creationDate?: Date }[] = [];
    for await (const p of paginateListStateMachines({ client: sfn, pageSize: 1 }, {})) all.push(...p.stateMachines!);
    const ours = all.filter((m) => m.name!.startsWith(prefix));
    expect(ours.map((m) => ({ ...m, creationDate: m.creationDate instanceof Date })))
      .toEqual([...names].sort().map((name) => ({ stateMachineArn: `${ARN}:stateMachine:${name}`, name, type: 'STANDARD', creationDate: true })));
    expect(all.map((m) => m.name)).toEqual(all.map((m) => m.name).sort());
    expect(all.map((m) => m.name)).toEqual(await machineNames());
  });

  it('answers bad input with the exact fault and writes nothing', async () => {
    const before = await machineNames();
    const name = fresh('bad');
    await expectFault(sfn.send(new CreateStateMachineCommand({ name: 'a b', definition: PASS, roleArn: ROLE })), InvalidName);
    await expectFault(sfn.send(new CreateStateMachineCommand({ name: 'x'.repeat(81), definition: PASS, roleArn: ROLE })), InvalidName);
    for (const definition of ['{', '{}', '[]', JSON.stringify({ StartAt: 'Missing', States: { A: { Type: 'Pass', End: true } } }),
      JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Bogus', End: true } } })]) {
      const err = await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition, roleArn: ROLE })), InvalidDefinition);
      expect(err.message).toMatch(/^Invalid State Machine Definition/);
    }
    for (const roleArn of ['role', `arn:aws:iam::123:role/x`, `arn:aws:iam::${ACCOUNT}:user/x`, `${ARN}:activity:x`]) {
      await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn })), InvalidArn);
    }
    await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition: PASS } as any)), ValidationException);
    await expectFault(sfn.send(new CreateStateMachineCommand({ name, roleArn: ROLE } as any)), ValidationException);
    await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE, type: 'OTHER' as any })), ValidationException);
    const tags = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}` }));
    await expectFault(sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE, tags })), TooManyTags);
    expect(await machineNames()).toEqual(before);

    const { stateMachineArn } = await sfn.send(new CreateStateMachineCommand({ name, definition: PASS, roleArn: ROLE }));
    const held = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
    await expectFault(sfn.send(new UpdateStateMachineCommand({ stateMachineArn })), ValidationException);
    await expectFault(sfn.send(new UpdateStateMachineCommand({ stateMachineArn, definition: '{"StartAt":1}' })), InvalidDefinition);
    await expectFault(sfn.send(new UpdateStateMachineCommand({ stateMachineArn, roleArn: 'bad' })), InvalidArn);
    await expectFault(sfn.send(new UpdateStateMachineCommand({ stateMachineArn, definition: PASS2, roleArn: 'bad' })), InvalidArn);
    const after = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
    expect({ d: after.definition, r: after.roleArn, v: after.revisionId }).toEqual({ d: held.definition, r: held.roleArn, v: held.revisionId });

    // A version ARN is one DescribeStateMachine reads (none published here); Update and Delete take the state machine's.
    await expectFault(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${ARN}:stateMachine:${name}:1` })), StateMachineDoesNotExist);
    for (const arn of ['x', `${ARN}:activity:${name}`, `${ARN}:stateMachine:${name}:1`, `${ARN}:execution:${name}:e`]) {
      if (!arn.endsWith(':1')) await expectFault(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn })), InvalidArn);
      await expectFault(sfn.send(new DeleteStateMachineCommand({ stateMachineArn: arn })), InvalidArn);
      await expectFault(sfn.send(new UpdateStateMachineCommand({ stateMachineArn: arn, definition: PASS })), InvalidArn);
    }
    await expectFault(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `arn:aws:states:${REGION}:111122223333:stateMachine:${name}` })), StateMachineDoesNotExist);
    await expectFault(sfn.send(new ListStateMachinesCommand({ nextToken: 'x' })), InvalidToken);
    await expectFault(sfn.send(new ListStateMachinesCommand({ maxResults: 5000 })), ValidationException);
    expect((await sfn.send(new DescribeStateMachineCommand({ stateMachineArn }))).revisionId).toBe(held.revisionId);
  });
});

describe('the HTTP wire', () => {
  it('answers faults as AWS JSON errors with the fault name, and unknown actions with UnknownOperationException', async () => {
    const a = await rawCall(port, { target: 'AWSStepFunctions.DescribeActivity', body: JSON.stringify({ activityArn: 'bad' }) });
    expect({ status: a.status, type: a.json?.__type, message: a.json?.message }).toEqual({ status: 400, type: 'InvalidArn', message: "Invalid Arn: 'bad'" });
    const u = await rawCall(port, { target: 'AWSStepFunctions.NoSuchAction', body: '{}' });
    expect({ status: u.status, type: u.json?.__type }).toEqual({ status: 400, type: 'UnknownOperationException' });
    // SWF actions are not Step Functions actions
    const s = await rawCall(port, { target: 'AWSStepFunctions.ListDomains', body: '{}' });
    expect({ status: s.status, type: s.json?.__type }).toEqual({ status: 400, type: 'UnknownOperationException' });
  });
});

/** Malformed Step Functions requests, each with the AWS error it must get (the fuzzer's checks, for this surface). */
const WIRE_CASES: { action: string; body: string; type: string; status?: number }[] = [
  { action: 'DescribeActivity', body: JSON.stringify({ activityArn: `${ARN}:stateMachine:x` }), type: 'InvalidArn' },
  { action: 'DeleteActivity', body: JSON.stringify({ activityArn: 'arn:aws:states:::activity:x' }), type: 'InvalidArn' },
  { action: 'DescribeStateMachine', body: JSON.stringify({ stateMachineArn: 'x'.repeat(300) }), type: 'ValidationException' },
  { action: 'UpdateStateMachine', body: JSON.stringify({ stateMachineArn: `${ARN}:stateMachine:a|b`, definition: PASS }), type: 'InvalidArn' },
  { action: 'CreateActivity', body: JSON.stringify({ name: 'a\u0000b' }), type: 'InvalidName' },
  { action: 'CreateActivity', body: JSON.stringify({ name: 7 }), type: 'SerializationException' },
  { action: 'CreateActivity', body: '{"name":', type: 'SerializationException' },
  { action: 'CreateStateMachine', body: JSON.stringify({ name: 'ok', definition: '{"StartAt":"A","States":{}}', roleArn: ROLE }), type: 'InvalidDefinition' },
  // Over 1 MiB the gateway refuses the body before any operation sees it (its maxBodyBytes is 1 MiB).
  { action: 'CreateStateMachine', body: JSON.stringify({ name: 'ok', definition: 'x'.repeat(1_048_577), roleArn: ROLE }), type: 'RequestEntityTooLargeException', status: 413 },
  { action: 'ListActivities', body: JSON.stringify({ nextToken: Buffer.from('{"k":"activities","a":5}').toString('base64url') }), type: 'InvalidToken' },
  { action: 'ListStateMachines', body: JSON.stringify({ maxResults: 1.5 }), type: 'ValidationException' },
  { action: 'StartSyncExecution', body: '{}', type: 'ValidationException' },
  { action: '__proto__', body: '{}', type: 'UnknownOperationException' },
];

describe('the HTTP wire for malformed Step Functions requests', () => {
  it.each(WIRE_CASES)('$action $type', async (c) => {
    const before = { a: await activityNames(), m: await machineNames() };
    const a = await rawCall(port, { target: `AWSStepFunctions.${c.action}`, body: c.body });
    expect({ status: a.status, type: a.json?.__type }).toEqual({ status: c.status ?? 400, type: c.type });
    expect(typeof a.json.message).toBe('string');
    expect(a.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(a.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect({ a: await activityNames(), m: await machineNames() }).toEqual(before);
  });
});

describe('the same operations over NATS (TS SDK client)', () => {
  it('creates, describes, lists and deletes activities and state machines, with the same faults', async () => {
    const c = e.client;
    const name = fresh('nats');
    const a = await c.call<{ activityArn: string; creationDate: number }>('CreateActivity', { name });
    expect(a.activityArn).toBe(`${ARN}:activity:${name}`);
    expect(typeof a.creationDate).toBe('number');
    expect(await c.call('DescribeActivity', { activityArn: a.activityArn })).toEqual({ activityArn: a.activityArn, name, creationDate: a.creationDate });
    const listed = await c.call<{ activities: { name: string }[] }>('ListActivities', { maxResults: 1000 });
    expect(listed.activities.map((x) => x.name)).toContain(name);
    await c.call('DeleteActivity', { activityArn: a.activityArn });
    const gone = await rejection(c.call('DescribeActivity', { activityArn: a.activityArn }));
    expect(isFault(gone, 'ActivityDoesNotExist')).toBe(true);
    expect(isFault(await rejection(c.call('CreateActivity', { name: 'a/b' })), 'InvalidName')).toBe(true);
    expect(isFault(await rejection(c.call('ListActivities', { nextToken: 'zz' })), 'InvalidToken')).toBe(true);

    const sm = await c.call<{ stateMachineArn: string; creationDate: number }>('CreateStateMachine', { name, definition: PASS, roleArn: ROLE });
    expect(sm.stateMachineArn).toBe(`${ARN}:stateMachine:${name}`);
    const u = await c.call<{ revisionId: string; updateDate: number }>('UpdateStateMachine', { stateMachineArn: sm.stateMachineArn, definition: PASS2 });
    const d = await c.call<Record<string, unknown>>('DescribeStateMachine', { stateMachineArn: sm.stateMachineArn });
    expect(d).toEqual({
      stateMachineArn: sm.stateMachineArn, name, status: 'ACTIVE', definition: PASS2, roleArn: ROLE, type: 'STANDARD',
      creationDate: sm.creationDate, revisionId: u.revisionId, loggingConfiguration: { level: 'OFF', includeExecutionData: false },
    });
    expect(u.updateDate).toBeGreaterThanOrEqual(sm.creationDate);
    expect(isFault(await rejection(c.call('CreateStateMachine', { name: fresh('n'), definition: '{', roleArn: ROLE })), 'InvalidDefinition')).toBe(true);
    expect(isFault(await rejection(c.call('DescribeStateMachine', { stateMachineArn: 'arn' })), 'InvalidArn')).toBe(true);
    await c.call('DeleteStateMachine', { stateMachineArn: sm.stateMachineArn });
    expect(isFault(await rejection(c.call('DescribeStateMachine', { stateMachineArn: sm.stateMachineArn })), 'StateMachineDoesNotExist')).toBe(true);
    // SWF actions keep working on the same subjects
    expect(await c.call('ListDomains', { registrationStatus: 'REGISTERED' })).toHaveProperty('domainInfos');
  });
});
