import { describe, expect, it } from 'vitest';
import { parsedInspection, testStateClientForFile } from '../helpers/sfn-test-state.js';

const client = testStateClientForFile();
const testState = client.run;

const ACTIVITY = 'arn:aws:states:us-east-1:000000000000:activity:charge';
const ROLE = 'arn:aws:iam::000000000000:role/sfn-test';

const task = (extra: object = {}) => ({
  Type: 'Task', Resource: ACTIVITY, InputPath: '$.order', Parameters: { 'id.$': '$.id', 'at.$': '$$.State.Name' },
  ResultSelector: { 'paid.$': '$.ok' }, ResultPath: '$.payment', Next: 'Ship', ...extra,
});

describe('TestState: a mocked Task', () => {
  it('a mocked result goes through ResultSelector and ResultPath; DEBUG shows every step', async () => {
    const out = await testState(task(), { json: { order: { id: 7 } }, mock: { result: '{"ok":true,"extra":1}' }, inspectionLevel: 'DEBUG' });
    expect(out).toMatchObject({ status: 'SUCCEEDED', nextState: 'Ship' });
    expect(JSON.parse(out.output!)).toEqual({ order: { id: 7 }, payment: { paid: true } });
    expect(parsedInspection(out)).toEqual({
      input: { order: { id: 7 } },
      afterInputPath: { id: 7 },
      afterParameters: { id: 7, at: 'StateName' },
      result: { ok: true, extra: 1 },
      afterResultSelector: { paid: true },
      afterResultPath: { order: { id: 7 }, payment: { paid: true } },
    });
  });

  it('a mocked error without a handler fails the state with that error and cause', async () => {
    const out = await testState(task(), { json: { order: { id: 1 } }, mock: { errorOutput: { error: 'Card.Declined', cause: 'no funds' } } });
    expect(out).toMatchObject({ status: 'FAILED', error: 'Card.Declined', cause: 'no funds' });
    expect(out.output).toBeUndefined();
    expect(out.nextState).toBeUndefined();
  });

  it('Retry: RETRIABLE with the retrier and its backoff for the retry count under test, then the catcher once spent', async () => {
    const def = task({
      Retry: [{ ErrorEquals: ['Other'], MaxAttempts: 5 }, { ErrorEquals: ['Lambda.ServiceException'], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2 }],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Handle' }],
    });
    const mock = { errorOutput: { error: 'Lambda.ServiceException', cause: 'Service error' } };
    const first = await testState(def, { json: { order: { id: 1 } }, mock, inspectionLevel: 'DEBUG' });
    expect(first).toMatchObject({ status: 'RETRIABLE', error: 'Lambda.ServiceException', cause: 'Service error' });
    expect(first.inspectionData!.errorDetails).toEqual({ retryIndex: 1, retryBackoffIntervalSeconds: 2 });
    // AWS's worked example: retrierRetryCount 1 → 2 × 2.0^1 = 4 s.
    const second = await testState(def, { json: { order: { id: 1 } }, mock, inspectionLevel: 'DEBUG', stateConfiguration: { retrierRetryCount: 1 } });
    expect(second.inspectionData!.errorDetails).toEqual({ retryIndex: 1, retryBackoffIntervalSeconds: 4 });
    expect(second.output).toBeUndefined();
    const spent = await testState(def, { json: { order: { id: 1 } }, mock, inspectionLevel: 'DEBUG', stateConfiguration: { retrierRetryCount: 3 } });
    expect(spent).toMatchObject({ status: 'CAUGHT_ERROR', nextState: 'Handle', error: 'Lambda.ServiceException' });
    expect(spent.inspectionData!.errorDetails).toEqual({ catchIndex: 0 });
    expect(JSON.parse(spent.output!)).toEqual({ order: { id: 1 }, error: { Error: 'Lambda.ServiceException', Cause: 'Service error' } });
  });

  it('Catch: CAUGHT_ERROR with the catcher that matched, its Next and its output (AWS\'s worked example)', async () => {
    const def = {
      Type: 'Task', Resource: ACTIVITY, Next: 'Success',
      Catch: [{ ErrorEquals: ['Other'], Next: 'Elsewhere' }, { ErrorEquals: ['Lambda.TooManyRequestsException'], ResultPath: '$.error', Next: 'HandleThrottling' }],
    };
    const out = await testState(def, { json: { data: 'value' }, mock: { errorOutput: { error: 'Lambda.TooManyRequestsException', cause: 'Rate exceeded' } }, inspectionLevel: 'DEBUG' });
    expect(out).toMatchObject({ status: 'CAUGHT_ERROR', nextState: 'HandleThrottling', error: 'Lambda.TooManyRequestsException', cause: 'Rate exceeded' });
    expect(JSON.parse(out.output!)).toEqual({ data: 'value', error: { Error: 'Lambda.TooManyRequestsException', Cause: 'Rate exceeded' } });
    expect(out.inspectionData!.errorDetails).toEqual({ catchIndex: 1 });
  });

  it('`context` is `$$`: the Task reads the execution and state it gives', async () => {
    const context = { Execution: { Id: 'arn:aws:states:us-east-1:123456789012:execution:MyStateMachine:test-exec-123', Name: 'test-exec-123' }, State: { Name: 'ProcessData', EnteredTime: '2024-01-01T10:00:05.000Z' } };
    const def = { Type: 'Task', Resource: ACTIVITY, Parameters: { 'executionId.$': '$$.Execution.Id', 'stateName.$': '$$.State.Name', 'enteredTime.$': '$$.State.EnteredTime' }, End: true };
    const out = await testState(def, { json: { data: 'value' }, context: JSON.stringify(context), mock: { result: '{"status":"success"}' }, inspectionLevel: 'DEBUG' });
    expect(out.status).toBe('SUCCEEDED');
    expect(parsedInspection(out).afterParameters).toEqual({ executionId: context.Execution.Id, stateName: 'ProcessData', enteredTime: '2024-01-01T10:00:05.000Z' });
  });

  it('without a context, `$$` is an Express execution of the test, entered now', async () => {
    const def = { Type: 'Task', Resource: ACTIVITY, Parameters: { 'co.$': '$$' }, End: true };
    const out = await testState(def, { json: { a: 1 }, roleArn: ROLE, mock: { result: '{}' }, inspectionLevel: 'DEBUG' });
    const co = (parsedInspection(out).afterParameters as { co: any }).co;
    expect(co.Execution.Id).toMatch(/^arn:aws:states:us-east-1:\d{12}:express:[0-9a-f-]{36}:[0-9a-f-]{36}$/);
    expect(co).toMatchObject({ Execution: { Input: { a: 1 }, RoleArn: ROLE }, State: { Name: 'StateName', RetryCount: 0 } });
    expect(co.StateMachine.Id).toMatch(/:stateMachine:/);
  });
});

describe('TestState: Map and Parallel with a mock', () => {
  const map = { Type: 'Map', InputPath: '$.in', ItemsPath: '$.items', MaxConcurrency: 2, ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } }, ResultPath: '$.out', End: true };

  it('a Map answers with the mocked result of all its iterations; DEBUG shows its items', async () => {
    const out = await testState(map, { json: { in: { items: [1, 2, 3] } }, mock: { result: '[10,20,30]' }, inspectionLevel: 'DEBUG' });
    expect(out.status).toBe('SUCCEEDED');
    // ResultPath writes into the raw input, not the effective one.
    expect(JSON.parse(out.output!)).toEqual({ in: { items: [1, 2, 3] }, out: [10, 20, 30] });
    expect(parsedInspection(out)).toMatchObject({
      input: { in: { items: [1, 2, 3] } }, afterInputPath: { items: [1, 2, 3] }, afterItemsPath: [1, 2, 3], maxConcurrency: 2, result: [10, 20, 30],
    });
  });

  it('a Parallel answers with one mocked result per branch; a mocked error meets its Catch', async () => {
    const par = {
      Type: 'Parallel', Branches: [{ StartAt: 'A', States: { A: { Type: 'Pass', End: true } } }, { StartAt: 'B', States: { B: { Type: 'Pass', End: true } } }],
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Recover' }], Next: 'Join',
    };
    const ok = await testState(par, { json: { x: 1 }, mock: { result: '["a","b"]' } });
    expect(ok).toMatchObject({ status: 'SUCCEEDED', nextState: 'Join', output: '["a","b"]' });
    const caught = await testState(par, { json: { x: 1 }, mock: { errorOutput: { error: 'States.TaskFailed', cause: 'a branch failed' } }, stateConfiguration: { errorCausedByState: 'A' } });
    expect(caught).toMatchObject({ status: 'CAUGHT_ERROR', nextState: 'Recover', output: '{"Error":"States.TaskFailed","Cause":"a branch failed"}' });
  });
});
