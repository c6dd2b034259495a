import {
  CreateStateMachineCommand, SendTaskFailureCommand, SendTaskHeartbeatCommand, SendTaskSuccessCommand, StartExecutionCommand, type SFNClient,
} from '@aws-sdk/client-sfn';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactSfn, freshName, fullHistory, rejection, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

/*
 * The callback pattern through @aws-sdk/client-sfn: a nats:publish.waitForTaskToken Task publishes
 * the token to a subscriber of this test, which answers SendTaskSuccess/Failure/Heartbeat; its
 * timeouts, a late and a bad token, and the Task* events read back through GetExecutionHistory.
 */

let h: SfnHttpEngine;
let sfn: SFNClient;
let nc: NatsConnection;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  sfn = h.sfn;
  nc = await connect({ servers: h.engine.url });
});
afterAll(async () => {
  await nc?.close();
  await h?.stop();
});

const PUBLISH = 'arn:actorflow:states:::nats:publish';
const CALLBACK = `${PUBLISH}.waitForTaskToken`;

interface Delivered { subject: string; body: { token?: string; order?: number }; headers: Record<string, string> }

/** Collects what the engine publishes on `af.sfn.out.<subject>`. */
function listen(subject: string): { got: Delivered[]; sub: Subscription; next(): Promise<Delivered> } {
  const got: Delivered[] = [];
  const waiters: ((d: Delivered) => void)[] = [];
  const sub = nc.subscribe(`af.sfn.out.${subject}`, {
    callback: (_err, m) => {
      const headers: Record<string, string> = {};
      for (const k of m.headers?.keys() ?? []) headers[k] = m.headers!.get(k);
      const d = { subject: m.subject, body: m.json<Delivered['body']>(), headers };
      got.push(d);
      waiters.shift()?.(d);
    },
  });
  let taken = 0;
  return {
    got, sub,
    next: () => new Promise<Delivered>((resolve) => {
      const i = taken++;
      if (got[i]) resolve(got[i]);
      else waiters.push(resolve);
    }),
  };
}

async function run(task: object, input: object = { order: 7 }, extraStates: object = {}): Promise<string> {
  const { stateMachineArn } = await sfn.send(new CreateStateMachineCommand({
    name: freshName('cb'), roleArn: SFN_ROLE, definition: JSON.stringify({ StartAt: 'Ask', States: { Ask: { Type: 'Task', ...task }, ...extraStates } }),
  }));
  return (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }))).executionArn!;
}

const callback = (subject: string, extra: object = {}) => ({
  Resource: CALLBACK, Parameters: { Subject: subject, Message: { 'token.$': '$$.Task.Token', 'order.$': '$.order' }, Headers: { 'x-kind': 'order' } }, End: true, ...extra,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the callback pattern over nats:publish.waitForTaskToken', () => {
  it('round trip: the worker gets the token on its subject, heartbeats keep the task alive, SendTaskSuccess finishes it', async () => {
    const subject = freshName('orders').replace(/[^A-Za-z0-9_-]/g, '_');
    const l = listen(subject);
    const arn = await run(callback(subject, { TimeoutSeconds: 60, HeartbeatSeconds: 3 }));
    const msg = await l.next();
    expect(msg.subject).toBe(`af.sfn.out.${subject}`);
    expect(msg.body.order).toBe(7);
    expect(msg.headers).toEqual({ 'x-kind': 'order' });
    const taskToken = msg.body.token!;
    // 4.5 s in all, more than the 3 s window: only the heartbeats keep it open.
    for (let i = 0; i < 3; i++) {
      await sleep(1500);
      await sfn.send(new SendTaskHeartbeatCommand({ taskToken }));
    }
    await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify({ shipped: true }) }));
    const d = await waitClosed(sfn, arn);
    expect(d.status).toBe('SUCCEEDED');
    expect(d.output).toBe('{"shipped":true}');
    const events = await fullHistory(sfn, arn);
    expect(compactSfn(events)).toBe('1 ExecutionStarted(0) / 2 TaskStateEntered(0) / 3 TaskScheduled(2) / 4 TaskStarted(3) / 5 TaskSubmitted(4) / 6 TaskSucceeded(5) / 7 TaskStateExited(6) / 8 ExecutionSucceeded(7)');
    const [scheduled, started, submitted, succeeded] = [3, 4, 5, 6].map((id) => events.find((e) => e.id === id)!);
    expect(scheduled!.taskScheduledEventDetails).toEqual({
      resourceType: 'nats', resource: 'publish.waitForTaskToken', region: 'us-east-1',
      parameters: JSON.stringify({ Subject: subject, Message: { token: taskToken, order: 7 }, Headers: { 'x-kind': 'order' } }), timeoutInSeconds: 60, heartbeatInSeconds: 3,
    });
    expect(started!.taskStartedEventDetails).toEqual({ resourceType: 'nats', resource: 'publish.waitForTaskToken' });
    expect(submitted!.taskSubmittedEventDetails).toEqual({
      resourceType: 'nats', resource: 'publish.waitForTaskToken', output: JSON.stringify({ Subject: `af.sfn.out.${subject}` }), outputDetails: { truncated: false },
    });
    expect(succeeded!.taskSucceededEventDetails).toEqual({ resourceType: 'nats', resource: 'publish.waitForTaskToken', output: '{"shipped":true}', outputDetails: { truncated: false } });
    // A token of a finished task.
    expect((await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{}' })))).name).toMatch(/^(TaskTimedOut|TaskDoesNotExist)$/);
    l.sub.unsubscribe();
  });

  it('a missed heartbeat is States.Timeout, as AWS records it; a late token then answers TaskTimedOut', async () => {
    const subject = freshName('hb').replace(/[^A-Za-z0-9_-]/g, '_');
    const l = listen(subject);
    const arn = await run(callback(subject, { HeartbeatSeconds: 1 }));
    const { body } = await l.next();
    const d = await waitClosed(sfn, arn);
    expect(d).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    const timedOut = (await fullHistory(sfn, arn)).find((e) => e.type === 'TaskTimedOut')!;
    expect(timedOut.taskTimedOutEventDetails).toEqual({ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'States.Timeout' });
    const late = await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: body.token!, output: '{}' })));
    expect(late.name).toBe('TaskTimedOut');
    l.sub.unsubscribe();
  });

  it('TimeoutSeconds is States.Timeout; SendTaskFailure goes to Catch', async () => {
    const subject = freshName('to').replace(/[^A-Za-z0-9_-]/g, '_');
    const l = listen(subject);
    const slow = await run(callback(subject, { TimeoutSeconds: 1 }));
    await l.next();
    expect(await waitClosed(sfn, slow)).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect((await fullHistory(sfn, slow)).find((e) => e.type === 'TaskTimedOut')!.taskTimedOutEventDetails)
      .toEqual({ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'States.Timeout' });

    const { End: _end, ...open } = callback(subject, { Catch: [{ ErrorEquals: ['OutOfStock'], ResultPath: '$.error', Next: 'Sorry' }] }) as Record<string, unknown>;
    const caught = await run({ ...open, Next: 'Sorry' }, { order: 8 }, { Sorry: { Type: 'Pass', End: true } });
    const { body } = await l.next();
    await sleep(200);
    await sfn.send(new SendTaskFailureCommand({ taskToken: body.token!, error: 'OutOfStock', cause: 'none left' }));
    const d = await waitClosed(sfn, caught);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ order: 8, error: { Error: 'OutOfStock', Cause: 'none left' } });
    const failed = (await fullHistory(sfn, caught)).find((e) => e.type === 'TaskFailed')!;
    expect(failed.taskFailedEventDetails).toEqual({ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'OutOfStock', cause: 'none left' });
    l.sub.unsubscribe();
  });

  it('a callback in a Parallel branch stopped by its failing sibling answers its late token with TaskTimedOut', async () => {
    const subject = freshName('par').replace(/[^A-Za-z0-9_-]/g, '_');
    const l = listen(subject);
    const branch = (states: object, start: string) => ({ StartAt: start, States: states });
    const arn = await run({
      Type: 'Parallel', End: true,
      Branches: [
        branch({ Wait4Token: { Type: 'Task', ...callback(subject) } }, 'Wait4Token'),
        branch({ Nap: { Type: 'Wait', Seconds: 1, Next: 'Boom' }, Boom: { Type: 'Fail', Error: 'Sibling', Cause: 'went first' } }, 'Nap'),
      ],
    });
    const { body } = await l.next();
    expect(await waitClosed(sfn, arn)).toMatchObject({ status: 'FAILED', error: 'Sibling' });
    const late = await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: body.token!, output: '{}' })));
    expect(late.name).toBe('TaskTimedOut');
    l.sub.unsubscribe();
  });

  it('a worker that answers the token at once still finds TaskSubmitted before TaskSucceeded', async () => {
    const subject = freshName('quick').replace(/[^A-Za-z0-9_-]/g, '_');
    const sub = nc.subscribe(`af.sfn.out.${subject}`, {
      callback: (_e, m) => { void sfn.send(new SendTaskSuccessCommand({ taskToken: m.json<{ token: string }>().token, output: '"quick"' })); },
    });
    await nc.flush();
    const arns = [];
    for (let i = 0; i < 10; i++) arns.push(await run(callback(subject)));
    for (const arn of arns) {
      expect((await waitClosed(sfn, arn)).status).toBe('SUCCEEDED');
      expect((await fullHistory(sfn, arn)).map((e) => e.type).slice(2, 6)).toEqual(['TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded']);
    }
    sub.unsubscribe();
  });

  it('a token this engine did not issue is InvalidToken', async () => {
    const e = await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: 'not-a-token', output: '{}' })));
    expect(e.name).toBe('InvalidToken');
  });

  it('request-response nats:publish answers the full subject and publishes the Message as JSON', async () => {
    const subject = `${freshName('plain').replace(/[^A-Za-z0-9_-]/g, '_')}.created`;
    const l = listen(subject);
    const arn = await run({ Resource: PUBLISH, Parameters: { Subject: subject, 'Message.$': '$' }, End: true }, { order: 9 });
    expect((await l.next()).body).toEqual({ order: 9 });
    const d = await waitClosed(sfn, arn);
    expect(d).toMatchObject({ status: 'SUCCEEDED', output: JSON.stringify({ Subject: `af.sfn.out.${subject}` }) });
    expect((await fullHistory(sfn, arn)).map((e) => e.type)).toEqual(['ExecutionStarted', 'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited', 'ExecutionSucceeded']);
    l.sub.unsubscribe();
  });

  it('bad parameters fail the Task with States.Runtime and publish nothing', async () => {
    const arn = await run({ Resource: PUBLISH, Parameters: { Subject: 'a.*', Message: 1 }, End: true });
    const d = await waitClosed(sfn, arn);
    expect(d).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(d.cause).toContain("The Subject 'a.*' is not a literal subject");
  });

  it('an unknown service resource is refused at CreateStateMachine with AWS\'s wording', async () => {
    const e = await rejection(sfn.send(new CreateStateMachineCommand({
      name: freshName('bad'), roleArn: SFN_ROLE,
      definition: JSON.stringify({ StartAt: 'T', States: { T: { Type: 'Task', Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken', End: true } } }),
    })));
    expect(e.name).toBe('InvalidDefinition');
    expect(e.message).toBe("Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The resource provided arn:aws:states:::sqs:sendMessage.waitForTaskToken is not recognized. The value is not a valid resource ARN, or the resource is not available in this region. at /States/T/Resource'");
  });
});
