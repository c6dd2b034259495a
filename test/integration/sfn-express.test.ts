import {
  CreateActivityCommand, CreateStateMachineCommand, DescribeExecutionCommand, DescribeStateMachineCommand, GetExecutionHistoryCommand,
  InvalidArn, InvalidDefinition, InvalidLoggingConfiguration, ListExecutionsCommand, ListStateMachinesCommand, StartExecutionCommand,
  StartSyncExecutionCommand, StateMachineTypeNotSupported, ValidateStateMachineDefinitionCommand, StopExecutionCommand, UpdateStateMachineCommand, type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON, requireClient, run } from '../helpers/external-clients.js';
import { createMachine, freshName, SFN_ROLE, startSfnHttpEngine, type SfnHttpEngine } from '../helpers/sfn-http.js';
import { rawCall } from '../helpers/swf-http.js';
import { until } from '../helpers/until.js';
import { FIVE_STATES } from '../fixtures/sfn-five-states.js';
import { readToEnd } from '../../src/nats/read-stream.js';

let h: SfnHttpEngine;
let sfn: SFNClient;
beforeAll(async () => { h = await startSfnHttpEngine(); sfn = h.sfn; });
afterAll(async () => { await h?.stop(); });

const LOG_GROUP = 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/states/orders:*';
const logAll = { level: 'ALL' as const, includeExecutionData: true, destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: LOG_GROUP } }] };

async function express(definition: object, extra: object = {}): Promise<string> {
  const r = await sfn.send(new CreateStateMachineCommand({ name: freshName('x'), roleArn: SFN_ROLE, definition: JSON.stringify(definition), type: 'EXPRESS', ...extra }));
  return r.stateMachineArn!;
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected the call to fail');
}

/** Messages in a stream (its state, read through the engine's own JetStream manager). */
async function streamMessages(name: string): Promise<number> {
  return (await h.engine.node.nats.jsm.streams.info(name)).state.messages;
}

describe('EXPRESS state machines (AWS SDK)', () => {
  it('creates, describes, lists and updates an EXPRESS state machine with its logging configuration; the type stays', async () => {
    const arn = await express(FIVE_STATES, { loggingConfiguration: logAll });
    const d = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }));
    expect({ type: d.type, logging: d.loggingConfiguration }).toEqual({ type: 'EXPRESS', logging: logAll });
    const listed = (await sfn.send(new ListStateMachinesCommand({ maxResults: 1000 }))).stateMachines!.find((s) => s.stateMachineArn === arn);
    expect(listed?.type).toBe('EXPRESS');
    // Same name, definition and type again: idempotent; another type: already exists.
    const name = d.name!;
    const again = await sfn.send(new CreateStateMachineCommand({ name, roleArn: SFN_ROLE, definition: d.definition, type: 'EXPRESS', loggingConfiguration: logAll }));
    expect(again.stateMachineArn).toBe(arn);
    expect((await rejection(sfn.send(new CreateStateMachineCommand({ name, roleArn: SFN_ROLE, definition: d.definition, type: 'STANDARD' })))).name).toBe('StateMachineAlreadyExists');

    const u = await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: arn, loggingConfiguration: { level: 'ERROR', includeExecutionData: false, destinations: logAll.destinations } }));
    expect(u.revisionId).toBeTruthy();
    expect((await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))).loggingConfiguration?.level).toBe('ERROR');
    // The model's UpdateStateMachine has no type: a raw request that names another is refused and changes nothing.
    const raw = await rawCall(h.engine.node.http!.port, { target: 'AWSStepFunctions.UpdateStateMachine', body: JSON.stringify({ stateMachineArn: arn, type: 'STANDARD', definition: JSON.stringify(FIVE_STATES) }) });
    expect({ status: raw.status, type: raw.json.__type }).toEqual({ status: 400, type: 'ValidationException' });
    expect((await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))).type).toBe('EXPRESS');
    // A STANDARD machine answers logging OFF when created without one.
    const std = await createMachine(sfn, FIVE_STATES);
    expect((await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: std }))).loggingConfiguration).toEqual({ level: 'OFF', includeExecutionData: false });
  });

  it('refuses logging configurations as AWS does', async () => {
    for (const loggingConfiguration of [
      { level: 'ALL' as const },
      { level: 'ERROR' as const, destinations: [] },
      { level: 'ALL' as const, destinations: [...logAll.destinations, ...logAll.destinations] },
      { level: 'ALL' as const, destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: 'arn:aws:logs:us-east-1:000000000000:log-group:x' } }] },
    ]) {
      const err = await rejection(express(FIVE_STATES, { loggingConfiguration }));
      expect(err).toBeInstanceOf(InvalidLoggingConfiguration);
    }
    expect((await rejection(express(FIVE_STATES, { loggingConfiguration: { level: 'LOUD' } }))).name).toBe('ValidationException');
  });

  it('StartSyncExecution answers the whole output shape through the SDK', async () => {
    const arn = await express(FIVE_STATES);
    const r = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: arn, name: 'order-1', input: JSON.stringify({ n: 42 }), traceHeader: 'Root=1-abc' }));
    const smName = arn.split(':').at(-1)!;
    expect(r.executionArn).toMatch(new RegExp(`^arn:aws:states:us-east-1:000000000000:express:${smName}:order-1:[0-9a-f-]{36}$`));
    expect({
      stateMachineArn: r.stateMachineArn, name: r.name, status: r.status, input: r.input, inputDetails: r.inputDetails,
      output: JSON.parse(r.output!), outputDetails: r.outputDetails, traceHeader: r.traceHeader, error: r.error, cause: r.cause,
    }).toEqual({
      stateMachineArn: arn, name: 'order-1', status: 'SUCCEEDED', input: '{"n":42}', inputDetails: { included: true },
      output: { n: 42, tag: 'checked', size: 'big' }, outputDetails: { included: true }, traceHeader: 'Root=1-abc', error: undefined, cause: undefined,
    });
    expect(r.startDate).toBeInstanceOf(Date);
    expect(r.stopDate!.getTime()).toBeGreaterThanOrEqual(r.startDate!.getTime());
    expect(r.billingDetails).toEqual({ billedMemoryUsedInMB: 64, billedDurationInMilliseconds: expect.any(Number) });
    expect(r.billingDetails!.billedDurationInMilliseconds! % 100).toBe(0);
    const small = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: arn, input: JSON.stringify({ n: 1 }), includedData: 'METADATA_ONLY' }));
    expect({ status: small.status, input: small.input, output: small.output, inputDetails: small.inputDetails }).toEqual({ status: 'SUCCEEDED', input: undefined, output: undefined, inputDetails: { included: false } });
    expect(small.name).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a failed express execution answers FAILED with its error and cause; a Catch recovers; a Wait waits', async () => {
    const failing = await express({ StartAt: 'F', States: { F: { Type: 'Fail', Error: 'Out.Of.Stock', Cause: 'no blue widgets' } } });
    const f = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: failing }));
    expect({ status: f.status, error: f.error, cause: f.cause, output: f.output }).toEqual({ status: 'FAILED', error: 'Out.Of.Stock', cause: 'no blue widgets', output: undefined });

    const caught = await express({
      StartAt: 'P',
      States: {
        P: {
          Type: 'Parallel', Branches: [{ StartAt: 'B', States: { B: { Type: 'Fail', Error: 'Boom', Cause: 'inner' } } }],
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.caught', Next: 'After' }], Next: 'After',
        },
        After: { Type: 'Pass', End: true },
      },
    });
    const c = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: caught, input: '{"a":1}' }));
    expect({ status: c.status, output: JSON.parse(c.output!) }).toEqual({ status: 'SUCCEEDED', output: { a: 1, caught: { Error: 'Boom', Cause: 'inner' } } });

    const waiting = await express({ StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 1, End: true } } });
    const w = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: waiting, input: '{"w":true}' }));
    expect({ status: w.status, output: w.output }).toEqual({ status: 'SUCCEEDED', output: '{"w":true}' });
    expect(w.stopDate!.getTime() - w.startDate!.getTime()).toBeGreaterThanOrEqual(1000);
    expect(w.billingDetails!.billedDurationInMilliseconds).toBeGreaterThanOrEqual(1000);
  });

  it('refuses what EXPRESS does not run, and the actions that need history', async () => {
    const { activityArn } = await sfn.send(new CreateActivityCommand({ name: freshName('act') }));
    const withActivity = await rejection(express({ StartAt: 'T', States: { T: { Type: 'Task', Resource: activityArn, End: true } } }));
    expect(withActivity).toBeInstanceOf(InvalidDefinition);
    expect(withActivity.message).toBe("Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Express state machine does not support Activity ARN at /States/T/Resource'");
    const nested = await rejection(express({
      StartAt: 'P', States: { P: { Type: 'Parallel', End: true, Branches: [{ StartAt: 'T', States: { T: { Type: 'Task', Resource: activityArn, End: true } } }] } },
    }));
    expect(nested.message).toContain('at /States/P/Branches[0]/States/T/Resource');
    // ValidateStateMachineDefinition with type EXPRESS finds the same.
    const v = await sfn.send(new ValidateStateMachineDefinitionCommand({ type: 'EXPRESS', definition: JSON.stringify({ StartAt: 'T', States: { T: { Type: 'Task', Resource: activityArn, End: true } } }) }));
    expect({ result: v.result, diagnostics: v.diagnostics }).toEqual({ result: 'FAIL', diagnostics: [
      { severity: 'ERROR', code: 'SCHEMA_VALIDATION_FAILED', message: 'Express state machine does not support Activity ARN', location: '/States/T/Resource' }] });
    // The same definition is fine for STANDARD; an update of an EXPRESS machine to it is refused.
    const arn = await express(FIVE_STATES);
    await createMachine(sfn, { StartAt: 'T', States: { T: { Type: 'Task', Resource: activityArn, End: true } } });
    const update = await rejection(sfn.send(new UpdateStateMachineCommand({ stateMachineArn: arn, definition: JSON.stringify({ StartAt: 'T', States: { T: { Type: 'Task', Resource: activityArn, End: true } } }) })));
    expect(update).toBeInstanceOf(InvalidDefinition);

    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: '{"n":1}' }));
    for (const call of [
      sfn.send(new DescribeExecutionCommand({ executionArn })),
      sfn.send(new GetExecutionHistoryCommand({ executionArn })),
      sfn.send(new StopExecutionCommand({ executionArn })),
    ]) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(InvalidArn);
      expect(err.message).toBe("Invalid Arn: 'Resource type not valid in this context: express'");
    }
    expect(await rejection(sfn.send(new ListExecutionsCommand({ stateMachineArn: arn })))).toBeInstanceOf(StateMachineTypeNotSupported);
    const standard = await createMachine(sfn, FIVE_STATES);
    const sync = await rejection(sfn.send(new StartSyncExecutionCommand({ stateMachineArn: standard })));
    expect(sync).toBeInstanceOf(StateMachineTypeNotSupported);
    expect(sync.message).toBe('This operation is not supported by this type of state machine');
  });

  it('StartExecution on EXPRESS answers at once with the express ARN; express runs write no history unless logging asks', async () => {
    const arn = await express({ StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 1, Next: 'Tag' }, ...FIVE_STATES.States } });
    const histBefore = await streamMessages(h.engine.node.nats.subjects.streams.history);
    const logsBefore = await streamMessages(h.engine.node.nats.subjects.streams.sfnLogs);
    const t0 = Date.now();
    const started = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'same', input: '{"n":3}' }));
    expect(Date.now() - t0).toBeLessThan(1000 + 5000); // answered before (or about when) its Wait ends, on a loaded machine
    expect(started.executionArn).toMatch(/:express:.+:same:[0-9a-f-]{36}$/);
    expect(started.startDate).toBeInstanceOf(Date);
    // A reused name starts another execution (express names are not unique).
    const second = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'same', input: '{"n":3}' }));
    expect(second.executionArn).not.toBe(started.executionArn);
    for (let i = 0; i < 20; i++) await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: await arnOfFive(), input: `{"n":${i}}` }));
    await until(() => h.engine.node.ctx.sfnExpress!.runningCount === 0, { timeoutMs: 15_000 });
    expect(await streamMessages(h.engine.node.nats.subjects.streams.history)).toBe(histBefore);
    expect(await streamMessages(h.engine.node.nats.subjects.streams.sfnLogs)).toBe(logsBefore);
  });

  it('with logging, an express execution writes its events to the express log stream at the level asked', async () => {
    const all = await express(FIVE_STATES, { loggingConfiguration: logAll });
    const fatal = await express({ StartAt: 'F', States: { F: { Type: 'Fail', Error: 'E', Cause: 'c' } } }, { loggingConfiguration: { ...logAll, level: 'FATAL', includeExecutionData: false } });
    const r = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: all, name: 'logged', input: '{"n":1}' }));
    await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: fatal, name: 'fatal' }));
    const s = h.engine.node.nats.subjects;
    const read = async (sm: string, name: string) => {
      const out: any[] = [];
      for await (const m of readToEnd(h.engine.node.nats.js, s.streams.sfnLogs, { filter: s.sfnLog(sm.split(':').at(-1)!, name) })) out.push(m.json());
      return out;
    };
    const events = await read(all, 'logged');
    expect(events.map((e) => `${e.id} ${e.type}(${e.previousEventId})`).join(' / ')).toBe(
      '1 ExecutionStarted(0) / 2 PassStateEntered(0) / 3 PassStateExited(2) / 4 ChoiceStateEntered(3) / 5 ChoiceStateExited(4)'
      + ' / 6 PassStateEntered(5) / 7 PassStateExited(6) / 8 SucceedStateEntered(7) / 9 SucceedStateExited(8) / 10 ExecutionSucceeded(9)');
    expect(events.every((e) => e.executionArn === r.executionArn)).toBe(true);
    expect(JSON.parse(events.at(-1).executionSucceededEventDetails.output)).toEqual({ n: 1, tag: 'checked', size: 'small' });
    const failed = await read(fatal, 'fatal');
    expect(failed.map((e) => e.type)).toEqual(['ExecutionFailed']);
    expect(failed[0].executionFailedEventDetails).toEqual({ error: 'E', cause: 'c' });
  });

  it('a request-response service Task (nats:publish) runs in an express execution; its .waitForTaskToken form is refused', async () => {
    const subject = freshName('xp').replace(/[^A-Za-z0-9_-]/g, '_');
    const full = `${h.engine.node.config.sfnNatsPublishPrefix}.${subject}`;
    const got: unknown[] = [];
    const sub = h.engine.node.nats.nc.subscribe(full, { callback: (_e, m) => { got.push(m.json()); } });
    try {
      const task = (Resource: string) => ({
        StartAt: 'Tell', States: { Tell: { Type: 'Task', Resource, Parameters: { Subject: subject, 'Message.$': '$' }, ResultPath: '$.told', End: true } },
      });
      const arn = await express(task('arn:actorflow:states:::nats:publish'));
      const r = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: arn, input: '{"order":7}' }));
      expect({ status: r.status, output: JSON.parse(r.output!), error: r.error }).toEqual({ status: 'SUCCEEDED', output: { order: 7, told: { Subject: full } }, error: undefined });
      await until(() => got.length === 1, { timeoutMs: 5000 });
      expect(got).toEqual([{ order: 7 }]);
      const refused = await rejection(express(task('arn:actorflow:states:::nats:publish.waitForTaskToken')));
      expect(refused.message).toContain("Express state machine does not support '.waitForTaskToken' service integration at /States/Tell/Resource");
    } finally {
      sub.unsubscribe();
    }
  });

  it('over NATS the TS client waits for an express execution longer than its usual 10 s call timeout', async () => {
    const arn = await express({ StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 11, End: true } } });
    const r = await h.engine.client.call<{ status: string; output: string }>('StartSyncExecution', { stateMachineArn: arn, input: '{"slow":true}' });
    expect({ status: r.status, output: r.output }).toEqual({ status: 'SUCCEEDED', output: '{"slow":true}' });
  }, 30_000);

  it('boto3 runs start_sync_execution (with host prefix injection off)', async () => {
    await requireClient('boto3');
    const arn = await express(FIVE_STATES);
    const script = [
      'import boto3, json, sys',
      'from botocore.config import Config',
      // botocore would send StartSyncExecution to sync-127.0.0.1 otherwise.
      "c = boto3.client('stepfunctions', endpoint_url=sys.argv[1], region_name='us-east-1', config=Config(inject_host_prefix=False))",
      "r = c.start_sync_execution(stateMachineArn=sys.argv[2], input='{\"n\": 50}')",
      "print(json.dumps({'status': r['status'], 'output': json.loads(r['output']), 'billed': r['billingDetails']['billedMemoryUsedInMB']}))",
    ].join('\n');
    const r = await run(PYTHON, ['-c', script, `http://127.0.0.1:${h.engine.node.http!.port}`, arn], 40_000);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ status: 'SUCCEEDED', output: { n: 50, tag: 'checked', size: 'big' }, billed: 64 });
  }, 60_000);
});

let five: string | undefined;
async function arnOfFive(): Promise<string> {
  five ??= await express(FIVE_STATES);
  return five;
}
