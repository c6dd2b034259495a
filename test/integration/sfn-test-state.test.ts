import { describe, expect, it } from 'vitest';
import { parsedInspection, testStateClientForFile } from '../helpers/sfn-test-state.js';

const client = testStateClientForFile();
const testState = client.run;

const IO_PASS = {
  Type: 'Pass', InputPath: '$.payload', Parameters: { data: 1, 'from.$': '$.foo' }, ResultPath: '$.result', OutputPath: '$.result', Next: 'Another State',
};

describe('TestState: inspection levels (AWS SDK)', () => {
  it('INFO answers status, output and nextState only', async () => {
    const out = await testState(IO_PASS, { json: { payload: { foo: 'bar' } } });
    expect(out).toMatchObject({ status: 'SUCCEEDED', nextState: 'Another State' });
    expect(JSON.parse(out.output!)).toEqual({ data: 1, from: 'bar' });
    expect(out.inspectionData).toBeUndefined();
  });

  it('DEBUG shows each JSONPath data-flow step in order (AWS\'s worked example)', async () => {
    const out = await testState(
      { Type: 'Pass', InputPath: '$.payload', Parameters: { data: 1 }, ResultPath: '$.result', OutputPath: '$.result.data', Next: 'Another State' },
      { json: { payload: { foo: 'bar' } }, inspectionLevel: 'DEBUG' },
    );
    expect(out.output).toBe('1');
    expect(out.inspectionData).toEqual({
      input: '{"payload":{"foo":"bar"}}',
      afterInputPath: '{"foo":"bar"}',
      afterParameters: '{"data":1}',
      afterResultSelector: '{"data":1}',
      afterResultPath: '{"payload":{"foo":"bar"},"result":{"data":1}}',
    });
  });

  it('TRACE shows what DEBUG shows for a state that makes no HTTP call', async () => {
    const debug = await testState(IO_PASS, { json: { payload: { foo: 'bar' } }, inspectionLevel: 'DEBUG' });
    const trace = await testState(IO_PASS, { json: { payload: { foo: 'bar' } }, inspectionLevel: 'TRACE' });
    expect(trace.inspectionData).toEqual(debug.inspectionData);
    expect(trace.inspectionData!.request).toBeUndefined();
  });

  it('a Pass with a Result shows the result and the steps after it (as AWS shows it)', async () => {
    const out = await testState({ Type: 'Pass', Result: { resultKey: 'result value' }, End: true }, { json: { Value: 'HelloWorld' }, inspectionLevel: 'DEBUG' });
    expect(out.nextState).toBeUndefined();
    expect(parsedInspection(out)).toEqual({
      input: { Value: 'HelloWorld' }, result: { resultKey: 'result value' },
      afterResultSelector: { resultKey: 'result value' }, afterResultPath: { resultKey: 'result value' },
    });
  });
});

describe('TestState: each state type', () => {
  it('Choice: the rule that matches gives nextState; DEBUG shows the input after InputPath', async () => {
    const def = { Type: 'Choice', Choices: [{ Variable: '$.number', NumericEquals: 1, Next: 'Equals 1' }, { Variable: '$.number', NumericEquals: 2, Next: 'Equals 2' }], Default: 'No Match' };
    expect(await testState(def, { json: { number: 2 } })).toMatchObject({ status: 'SUCCEEDED', nextState: 'Equals 2', output: '{"number":2}' });
    expect(await testState(def, { json: { number: 7 } })).toMatchObject({ nextState: 'No Match' });
    const debug = await testState({ ...def, InputPath: '$.in' }, { json: { in: { number: 1 } }, inspectionLevel: 'DEBUG' });
    expect(parsedInspection(debug)).toEqual({ input: { in: { number: 1 } }, afterInputPath: { number: 1 } });
    const none = await testState({ Type: 'Choice', Choices: [{ Variable: '$.number', NumericEquals: 1, Next: 'Equals 1' }] }, { json: { number: 3 } });
    expect(none).toMatchObject({ status: 'FAILED', error: 'States.NoChoiceMatched' });
    expect(none.output).toBeUndefined();
  });

  it('Succeed gives its output and no next state; Fail gives its error and cause', async () => {
    const ok = await testState({ Type: 'Succeed', OutputPath: '$.v' }, { json: { v: { a: 1 } }, inspectionLevel: 'DEBUG' });
    expect({ status: ok.status, output: ok.output, next: ok.nextState }).toEqual({ status: 'SUCCEEDED', output: '{"a":1}', next: undefined });
    expect(parsedInspection(ok)).toEqual({ input: { v: { a: 1 } }, afterInputPath: { v: { a: 1 } } });
    const failed = await testState({ Type: 'Fail', Error: 'SomeFailure', Cause: "This state machines raises a 'SomeFailure' failure." });
    expect(failed).toMatchObject({ status: 'FAILED', error: 'SomeFailure', cause: "This state machines raises a 'SomeFailure' failure." });
    expect(failed.output).toBeUndefined();
    const fromInput = await testState({ Type: 'Fail', ErrorPath: '$.e', CausePath: '$.c' }, { json: { e: 'E1', c: 'why' } });
    expect(fromInput).toMatchObject({ status: 'FAILED', error: 'E1', cause: 'why' });
  });

  it('Wait does not wait: a year-long wait answers at once with its output and next state', async () => {
    const started = Date.now();
    const out = await testState({ Type: 'Wait', Seconds: 31_536_000, OutputPath: '$.keep', Next: 'After' }, { json: { keep: { x: 1 }, drop: 2 } });
    expect(out).toMatchObject({ status: 'SUCCEEDED', nextState: 'After', output: '{"x":1}' });
    expect(Date.now() - started).toBeLessThan(30_000);
    const bad = await testState({ Type: 'Wait', TimestampPath: '$.when', End: true }, { json: { when: 'tomorrow' } });
    expect(bad).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it('a data-flow error fails the state with the error an execution would get', async () => {
    const out = await testState({ Type: 'Pass', Parameters: { 'x.$': '$.missing' }, End: true }, { json: {}, inspectionLevel: 'DEBUG' });
    expect(out).toMatchObject({ status: 'FAILED', error: 'States.ParameterPathFailure' });
    expect(out.cause).toContain("The JSONPath '$.missing' specified for the field 'x.$' could not be found in the input");
    expect(parsedInspection(out)).toEqual({ input: {} });
  });
});
