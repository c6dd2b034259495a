import {
  CreateActivityCommand, CreateStateMachineCommand, DescribeExecutionCommand, GetActivityTaskCommand, SendTaskSuccessCommand, StartExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCall } from '../helpers/swf-http.js';
import { createMachine, compactSfn, freshName, fullHistory, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

/* Facts of AWS's recorded histories, through @aws-sdk/client-sfn against a real engine. */

let h: SfnHttpEngine | undefined;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  ({ sfn } = h);
});
afterAll(async () => { await h?.stop(); });

const machine = (definition: object): Promise<string> => createMachine(sfn, definition);
const start = async (stateMachineArn: string, input: string) => (await sfn.send(new StartExecutionCommand({ stateMachineArn, input }))).executionArn!;

describe('Step Functions histories as AWS records them', () => {
  it('keeps the input text exactly as sent, and an output that passes through unchanged', async () => {
    const sm = await machine({ StartAt: 'A', States: { A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Pass', End: true } } });
    const input = '["Hello", "World"]';
    const arn = await start(sm, input);
    const d = await waitClosed(sfn, arn);
    expect({ status: d.status, input: d.input, output: d.output }).toEqual({ status: 'SUCCEEDED', input, output: input });
    const events = await fullHistory(sfn, arn);
    expect(events[0]!.executionStartedEventDetails?.input).toBe(input);
    expect(events.at(-1)!.executionSucceededEventDetails?.output).toBe(input);
    // Every state's input and output: the raw wire (whichever details member carries them).
    const raw = await rawCall(h!.engine.node.http!.port, { target: 'AWSStepFunctions.GetExecutionHistory', body: JSON.stringify({ executionArn: arn }) });
    const payloads = (raw.json.events as Record<string, any>[]).slice(1, -1).map((e) => {
      const details = Object.entries(e).find(([k]) => k.endsWith('EventDetails'))![1];
      return details.input ?? details.output;
    });
    expect(payloads).toEqual([input, input, input, input]);
  });

  it('words a runtime failure as AWS does, with the state and its entered event id', async () => {
    const sm = await machine({ StartAt: 'Prep', States: { Prep: { Type: 'Pass', Next: 'Nap' }, Nap: { Type: 'Wait', SecondsPath: '$.input.waitSeconds', End: true } } });
    const arn = await start(sm, JSON.stringify({ input: { waitSeconds: -1 } }));
    const d = await waitClosed(sfn, arn);
    const cause = "An error occurred while executing the state 'Nap' (entered at the event id #4). The SecondsPath parameter references a negative value: $.input.waitSeconds == -1";
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({ status: 'FAILED', error: 'States.Runtime', cause });
    const events = await fullHistory(sfn, arn);
    expect(compactSfn(events)).toBe('1 ExecutionStarted(0) / 2 PassStateEntered(0) / 3 PassStateExited(2) / 4 WaitStateEntered(3) / 5 ExecutionFailed(4)');
    expect(events[4]!.executionFailedEventDetails).toEqual({ error: 'States.Runtime', cause });
  });

  it('a Fail state without Error and Cause: DescribeExecution and ExecutionFailed have neither member', async () => {
    const sm = await machine({ StartAt: 'F', States: { F: { Type: 'Fail' } } });
    const arn = await start(sm, '{}');
    const d = await waitClosed(sfn, arn);
    expect(d.status).toBe('FAILED');
    expect('error' in d || 'cause' in d).toBe(false);
    const events = await fullHistory(sfn, arn);
    expect(events.at(-1)!.executionFailedEventDetails).toEqual({});
  });

  it('DescribeExecution carries the redrive members: NOT_REDRIVABLE while running, REDRIVABLE after a failure', async () => {
    const sm = await machine({ StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 1, Next: 'F' }, F: { Type: 'Fail', Error: 'E' } } });
    const arn = await start(sm, '{}');
    const running = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
    expect({ status: running.status, redriveCount: running.redriveCount, redriveStatus: running.redriveStatus, redriveStatusReason: running.redriveStatusReason })
      .toEqual({ status: 'RUNNING', redriveCount: 0, redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: 'Execution is RUNNING and cannot be redriven' });
    const failed = await waitClosed(sfn, arn);
    expect({ status: failed.status, error: failed.error, redriveCount: failed.redriveCount, redriveStatus: failed.redriveStatus, reason: failed.redriveStatusReason })
      .toEqual({ status: 'FAILED', error: 'E', redriveCount: 0, redriveStatus: 'REDRIVABLE', reason: undefined });
  });
});

describe('a Task on an input that passes through', () => {
  it('hands the worker the input text as sent', async () => {
    const { activityArn } = await sfn.send(new CreateActivityCommand({ name: freshName('act') }));
    const sm = await machine({ StartAt: 'T', States: { T: { Type: 'Task', Resource: activityArn, End: true } } });
    const input = '{ "order" : 7 }';
    const arn = await start(sm, input);
    const t = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'w' }));
    expect(t.input).toBe(input);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: t.taskToken, output: '{}' }));
    expect((await waitClosed(sfn, arn)).status).toBe('SUCCEEDED');
  });
});
