import { createHash } from 'node:crypto';
import { GetActivityTaskCommand, SendTaskSuccessCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactSfn, createMachine, fullHistory, machineWithActivity, sfnHttpEngineForFile, waitClosed } from '../helpers/sfn-http.js';

/*
 * The examples of AWS's pages "Transforming data with JSONata in Step Functions" and "Passing data
 * between states with variables", run through @aws-sdk/client-sfn against a real engine, with the
 * results those pages give.
 */

const engine = sfnHttpEngineForFile();
let sfn: SFNClient;
beforeAll(() => { sfn = engine.sfn; });

async function run(definition: object, input: unknown) {
  const stateMachineArn = await createMachine(sfn, definition);
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }));
  const d = await waitClosed(sfn, executionArn!);
  return { d, events: await fullHistory(sfn, executionArn!), output: d.output === undefined ? undefined : JSON.parse(d.output) };
}

describe('Transforming data with JSONata (AWS documentation examples)', () => {
  it('the JSONPath → JSONata conversion example gives the same task input both ways', async () => {
    const build = (state: object) => (activityArn: string) => ({
      StartAt: 'Init',
      States: {
        Init: { Type: 'Pass', Assign: { customerName: 'María' }, Next: 'Task' },
        Task: { Type: 'Task', Resource: activityArn, End: true, ...state },
      },
    });
    const jsonPath = build({ QueryLanguage: 'JSONPath', Parameters: { static: 'Hello', 'title.$': '$.title', 'name.$': '$customerName', 'not-evaluated': '$customerName' } });
    const jsonata = build({ QueryLanguage: 'JSONata', Arguments: { static: 'Hello', title: '{% $states.input.title %}', name: '{% $customerName %}', 'not-evaluated': '$customerName' } });
    for (const def of [jsonPath, jsonata]) {
      const { activityArn, stateMachineArn } = await machineWithActivity(sfn, def);
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{ "title" : "Doctor" }' }));
      const t = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'w' }));
      expect(JSON.parse(t.input!)).toEqual({ static: 'Hello', title: 'Doctor', name: 'María', 'not-evaluated': '$customerName' });
      await sfn.send(new SendTaskSuccessCommand({ taskToken: t.taskToken, output: '{}' }));
      expect((await waitClosed(sfn, executionArn!)).status).toBe('SUCCEEDED');
    }
  });

  it('the functions Step Functions adds give the documented results', async () => {
    const { output } = await run({
      QueryLanguage: 'JSONata', StartAt: 'F',
      States: {
        F: {
          Type: 'Pass', End: true,
          Output: {
            partition: '{% $partition([1,2,3,4], 2) %}',
            range: '{% $range(0, 10, 2) %}',
            hash: '{% $hash("input data", "SHA-256") %}',
            parse: `{% $parse('{"key": "value"}') %}`,
            uuid: '{% $length($uuid()) %}',
            random: '{% $random(42) = $random(42) %}',
          },
        },
      },
    }, {});
    expect(output).toEqual({
      partition: [[1, 2], [3, 4]],
      range: [0, 2, 4, 6, 8, 10],
      hash: createHash('sha256').update('input data').digest('hex'),
      parse: { key: 'value' },
      uuid: 36,
      random: true,
    });
  });

  it('$states.input, $states.result and Output on a Task, as the page describes them', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (arn) => ({
      QueryLanguage: 'JSONata', StartAt: 'Get',
      States: {
        Get: {
          Type: 'Task', Resource: arn, Arguments: { id: '{% $states.input.order.id %}' },
          Output: { order: '{% $states.input.order %}', price: '{% $states.result.price %}' }, End: true,
        },
      },
    }));
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{"order":{"id":"A1","qty":2}}' }));
    const t = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'w' }));
    expect(JSON.parse(t.input!)).toEqual({ id: 'A1' });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: t.taskToken, output: '{"price":9.5}' }));
    const d = await waitClosed(sfn, executionArn!);
    expect(JSON.parse(d.output!)).toEqual({ order: { id: 'A1', qty: 2 }, price: 9.5 });
  });

  it('a failed expression: States.QueryEvaluationError, AWS\'s cause, and EvaluationFailed in the history', async () => {
    const { d, events } = await run({ QueryLanguage: 'JSONata', StartAt: 'Transform', States: { Transform: { Type: 'Pass', Output: '{% $states.input.missing %}', End: true } } }, {});
    const cause = "An error occurred while executing the state 'Transform' (entered at the event id #2). The JSONata expression '$states.input.missing' specified for the field 'Output' returned nothing (undefined).";
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({ status: 'FAILED', error: 'States.QueryEvaluationError', cause });
    expect(compactSfn(events)).toBe('1 ExecutionStarted(0) / 2 PassStateEntered(0) / 3 EvaluationFailed(2) / 4 ExecutionFailed(3)');
    expect(events[2]!.evaluationFailedEventDetails).toEqual({ error: 'States.QueryEvaluationError', cause, location: 'Output', state: 'Transform' });
  });
});

describe('Passing data between states with variables (AWS documentation examples)', () => {
  it('Assign stores values a later state reads; the exited event carries assignedVariables', async () => {
    const { output, events } = await run({
      QueryLanguage: 'JSONata', StartAt: 'Store',
      States: {
        Store: { Type: 'Pass', Assign: { productName: 'product1', count: 42, available: true }, Next: 'Use' },
        Use: { Type: 'Pass', Output: '{% $productName & " x" & $string($count) & ($available ? " in stock" : "") %}', End: true },
      },
    }, {});
    expect(output).toBe('product1 x42 in stock');
    expect(events[2]!.stateExitedEventDetails).toEqual({
      name: 'Store', output: '{}', outputDetails: { truncated: false },
      assignedVariables: { productName: '"product1"', count: '42', available: 'true' }, assignedVariablesDetails: { truncated: false },
    });
  });

  it('assignments are evaluated with the values from before the state (the swap example)', async () => {
    const { output } = await run({
      QueryLanguage: 'JSONata', StartAt: 'A',
      States: {
        A: { Type: 'Pass', Assign: { x: 3, y: 2 }, Next: 'B' },
        B: { Type: 'Pass', Assign: { x: '{% $y %}', y: '{% $x %}' }, Next: 'C' },
        C: { Type: 'Pass', Output: { x: '{% $x %}', y: '{% $y %}' }, End: true },
      },
    }, {});
    expect(output).toEqual({ x: 2, y: 3 });
  });

  it('Map and Parallel read outer variables, their own stay inside, Output hands results out', async () => {
    const { output } = await run({
      QueryLanguage: 'JSONata', StartAt: 'Init',
      States: {
        Init: { Type: 'Pass', Assign: { tax: 0.5 }, Next: 'Each' },
        Each: {
          Type: 'Map', Items: '{% $states.input.prices %}', Next: 'Done',
          ItemProcessor: {
            StartAt: 'Price',
            States: {
              Price: { Type: 'Pass', Assign: { gross: '{% $states.input * (1 + $tax) %}' }, Next: 'Out' },
              Out: { Type: 'Pass', Output: '{% $gross %}', End: true },
            },
          },
        },
        Done: { Type: 'Pass', Output: '{% { "gross": $states.input, "leaked": $exists($gross) } %}', End: true },
      },
    }, { prices: [10, 20] });
    expect(output).toEqual({ gross: [15, 30], leaked: false });
  });

  it('JSONPath states read variables ($name, "x.$": "$name.field")', async () => {
    const { output } = await run({
      StartAt: 'A',
      States: {
        A: { Type: 'Pass', Assign: { 'user.$': '$.user' }, Next: 'B' },
        B: { Type: 'Pass', Parameters: { 'name.$': '$user.name', 'greeting.$': "States.Format('Hello {}', $user.name)" }, End: true },
      },
    }, { user: { name: 'Ana' } });
    expect(output).toEqual({ name: 'Ana', greeting: 'Hello Ana' });
  });
});
