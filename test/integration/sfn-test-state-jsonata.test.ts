import { describe, expect, it } from 'vitest';
import { parsedInspection, testStateClientForFile } from '../helpers/sfn-test-state.js';

const client = testStateClientForFile();
const testState = client.run;

const ACTIVITY = 'arn:aws:states:us-east-1:000000000000:activity:price';

describe('TestState: JSONata states and variables', () => {
  it('a JSONata Pass: Output and Assign read $states and the variables given; DEBUG shows the input and the variables after the state', async () => {
    const def = {
      Type: 'Pass', QueryLanguage: 'JSONata', Next: 'After',
      Assign: { var_input_value: '{% $states.input.value %}', total: '{% $sum($states.input.values) + $base %}' },
      Output: { sum: '{% $sum($states.input.values) %}', base: '{% $base %}', stateName: '{% $states.context.State.Name %}' },
    };
    const out = await testState(def, { json: { value: 'v', values: [1, 2, 3] }, variables: JSON.stringify({ base: 10 }), inspectionLevel: 'DEBUG' });
    expect(out).toMatchObject({ status: 'SUCCEEDED', nextState: 'After' });
    expect(JSON.parse(out.output!)).toEqual({ sum: 6, base: 10, stateName: 'StateName' });
    expect(parsedInspection(out)).toEqual({ input: { value: 'v', values: [1, 2, 3] }, variables: { base: 10, var_input_value: 'v', total: 16 } });
  });

  it('a JSONata Task: Arguments, the mocked result and Output; DEBUG shows afterArguments and result, no JSONPath steps', async () => {
    const def = {
      Type: 'Task', QueryLanguage: 'JSONata', Resource: ACTIVITY, End: true,
      Arguments: { sku: '{% $states.input.sku %}', qty: '{% $states.input.qty * 2 %}' },
      Output: { price: '{% $states.result.unit * $states.input.qty %}' },
      Assign: { lastUnit: '{% $states.result.unit %}' },
    };
    const out = await testState(def, { json: { sku: 'A1', qty: 3 }, mock: { result: '{"unit":5}' }, inspectionLevel: 'DEBUG' });
    expect(out.output).toBe('{"price":15}');
    expect(parsedInspection(out)).toEqual({ input: { sku: 'A1', qty: 3 }, afterArguments: { sku: 'A1', qty: 6 }, result: { unit: 5 }, variables: { lastUnit: 5 } });
  });

  it('a JSONata Choice takes the first Condition that holds and its Assign', async () => {
    const def = {
      Type: 'Choice', QueryLanguage: 'JSONata', Default: 'Small',
      Choices: [{ Condition: '{% $states.input.cost > $limit %}', Next: 'Approve', Assign: { flagged: true } }],
    };
    const big = await testState(def, { json: { cost: 10 }, variables: JSON.stringify({ limit: 9 }), inspectionLevel: 'DEBUG' });
    expect(big).toMatchObject({ status: 'SUCCEEDED', nextState: 'Approve', output: '{"cost":10}' });
    expect(parsedInspection(big)).toEqual({ input: { cost: 10 }, variables: { limit: 9, flagged: true } });
    expect(await testState(def, { json: { cost: 9 }, variables: JSON.stringify({ limit: 9 }) })).toMatchObject({ nextState: 'Small' });
  });

  it('a failed JSONata evaluation fails the state with States.QueryEvaluationError', async () => {
    const out = await testState({ Type: 'Pass', QueryLanguage: 'JSONata', Output: '{% $states.input.missing %}', End: true }, { json: {} });
    expect(out).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError' });
    expect(out.cause).toContain('returned nothing (undefined)');
  });

  it('a JSONata catcher: its Output and Assign see $states.errorOutput', async () => {
    const def = {
      Type: 'Task', QueryLanguage: 'JSONata', Resource: ACTIVITY, End: true,
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Fallback', Output: { failed: '{% $states.errorOutput.Error %}' }, Assign: { why: '{% $states.errorOutput.Cause %}' } }],
    };
    const out = await testState(def, { json: {}, mock: { errorOutput: { error: 'Boom', cause: 'it broke' } }, inspectionLevel: 'DEBUG' });
    expect(out).toMatchObject({ status: 'CAUGHT_ERROR', nextState: 'Fallback', error: 'Boom', cause: 'it broke', output: '{"failed":"Boom"}' });
    expect(parsedInspection(out)).toMatchObject({ variables: { why: 'it broke' }, errorDetails: { catchIndex: 0 } });
  });

  it('JSONPath Assign: the variables given are read as $name, the assigned ones shown after the state', async () => {
    const def = { Type: 'Pass', Parameters: { 'greeting.$': "States.Format('{} {}', $hello, $.name)" }, Assign: { 'said.$': '$.greeting', count: 1 }, End: true };
    const out = await testState(def, { json: { name: 'Ada' }, variables: JSON.stringify({ hello: 'Hi' }), inspectionLevel: 'DEBUG' });
    expect(out.output).toBe('{"greeting":"Hi Ada"}');
    expect(parsedInspection(out).variables).toEqual({ hello: 'Hi', said: 'Hi Ada', count: 1 });
  });
});
