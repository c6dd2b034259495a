import { InvalidArn, InvalidDefinition, InvalidExecutionInput, ValidationException, type SFNServiceException } from '@aws-sdk/client-sfn';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AWS, requireClient, run } from '../helpers/external-clients.js';
import { rejection } from '../helpers/sfn-http.js';
import { parsedInspection, testStateClientForFile, type TestStateCall } from '../helpers/sfn-test-state.js';

const client = testStateClientForFile();
const MODELS = fileURLToPath(new URL('../fixtures/aws-models', import.meta.url));
const testState = client.run;

const ACTIVITY = 'arn:aws:states:us-east-1:000000000000:activity:work';
const ROLE = 'arn:aws:iam::000000000000:role/sfn-test';
const PASS = { Type: 'Pass', End: true };

async function fault(definition: object, extra: TestStateCall, cls: abstract new (...a: any[]) => SFNServiceException): Promise<string> {
  const err = await rejection(testState(definition, extra));
  expect(err).toBeInstanceOf(cls);
  return (err as Error).message;
}

describe('TestState: faults as AWS names them', () => {
  it('an invalid definition is InvalidDefinition with the validator\'s problems', async () => {
    expect(await fault({ Type: 'Bogus', End: true }, {}, InvalidDefinition)).toContain("The field 'Type' should have one of these values");
    expect(await fault({ Type: 'Pass', Next: 'B', End: true }, {}, InvalidDefinition)).toMatch(/End|Next/);
    expect(await fault({ Type: 'Choice', Choices: [] }, {}, InvalidDefinition)).toMatch(/Choices/);
    // Text that is not JSON (the definition member as sent overrides the one built from an object).
    await fault({}, { definition: '{"Type": "Pass",' } as TestStateCall, InvalidDefinition);
  });

  it('input that is not JSON is InvalidExecutionInput; variables or context that are not objects are ValidationException', async () => {
    expect(await fault(PASS, { input: '{not json' }, InvalidExecutionInput)).toContain('Invalid State Machine Execution Input');
    await fault(PASS, { variables: '[1]' }, ValidationException);
    await fault({ Type: 'Task', Resource: ACTIVITY, End: true }, { mock: { result: '{}' }, context: '"x"' }, ValidationException);
  });

  it('the model\'s members: lengths, enums, the role ARN', async () => {
    await fault(PASS, { inspectionLevel: 'VERBOSE' as never }, ValidationException);
    await fault(PASS, { stateName: 'x'.repeat(81) }, ValidationException);
    await fault(PASS, { stateConfiguration: { retrierRetryCount: -1 } }, ValidationException);
    await fault(PASS, { roleArn: 'not-a-role' }, InvalidArn);
  });

  it('mock rules: one of result or errorOutput, only for Task, Map and Parallel, no revealSecrets, valid JSON; context needs a mock', async () => {
    const t = { Type: 'Task', Resource: ACTIVITY, End: true };
    expect(await fault(t, { mock: { result: '{}', errorOutput: { error: 'E' } } }, ValidationException))
      .toBe('A test mock should have only one of the following fields: [result, errorOutput].');
    expect(await fault(PASS, { mock: { result: '{}' } }, ValidationException)).toBe("State type 'Pass' is not supported when a mock is specified");
    expect(await fault(t, { mock: { result: '{}' }, revealSecrets: true }, ValidationException)).toBe('TestState does not support RevealSecrets when a mock is specified.');
    expect(await fault(t, { mock: { result: '{oops' } }, ValidationException)).toBe('Mocked result must be valid JSON');
    await fault(t, { context: '{}' }, ValidationException);
  });

  it('a Task without a mock needs a role, and an activity Task needs a mock; Map and Parallel need one too', async () => {
    const t = { Type: 'Task', Resource: ACTIVITY, End: true };
    expect(await fault(t, {}, ValidationException)).toBe('RoleArn must be specified when testing a Task state');
    expect(await fault(t, { roleArn: ROLE }, ValidationException)).toMatch(/Activity/);
    const map = { Type: 'Map', ItemProcessor: { StartAt: 'P', States: { P: PASS } }, End: true };
    expect(await fault(map, {}, InvalidDefinition)).toBe('TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]');
    expect(await fault(map, { mock: { result: '{}' } }, ValidationException)).toBe('Mocked result must be an array.');
    const par = { Type: 'Parallel', Branches: [{ StartAt: 'A', States: { A: PASS } }], End: true };
    expect(await fault(par, { mock: { result: '[1,2]' } }, ValidationException)).toBe('Mocked result must contain the same number of items as number of Parallel branches.');
  });
});

describe('TestState: a state of a whole state machine (stateName)', () => {
  const machine = {
    QueryLanguage: 'JSONata', StartAt: 'First',
    States: {
      First: { Type: 'Pass', Output: { n: '{% $states.input.n + 1 %}' }, Next: 'Loop' },
      Loop: {
        Type: 'Map', Items: '{% $states.input.items %}', End: true,
        ItemProcessor: { StartAt: 'Inner', States: { Inner: { Type: 'Pass', Output: { item: '{% $states.context.Map.Item.Value %}', index: '{% $states.context.Map.Item.Index %}' }, End: true } } },
      },
    },
  };

  it('runs the named state with the machine\'s query language; a nested one sees the first Map item', async () => {
    const first = await testState(machine, { stateName: 'First', json: { n: 1 } });
    expect(first).toMatchObject({ status: 'SUCCEEDED', nextState: 'Loop', output: '{"n":2}' });
    const inner = await testState(machine, { stateName: 'Inner', json: 'x' });
    expect(inner.output).toBe('{"item":"x","index":0}');
    expect(await fault(machine, { stateName: 'Nowhere' }, ValidationException)).toContain('Nowhere');
  });

  it('chains: each state\'s output and nextState feed the next test', async () => {
    const chain = {
      StartAt: 'Check',
      States: {
        Check: { Type: 'Choice', Choices: [{ Variable: '$.cost', NumericGreaterThan: 9, Next: 'Ask' }], Default: 'Approved' },
        Ask: { Type: 'Task', Resource: ACTIVITY, ResultPath: '$.approval', Next: 'Approved' },
        Approved: { Type: 'Succeed' },
      },
    };
    let out = await testState(chain, { stateName: 'Check', json: { cost: 10 }, inspectionLevel: 'DEBUG' });
    expect(out.nextState).toBe('Ask');
    out = await testState(chain, { stateName: out.nextState!, input: out.output!, mock: { result: '{"ok":true}' }, inspectionLevel: 'DEBUG' });
    expect(parsedInspection(out).afterResultPath).toEqual({ cost: 10, approval: { ok: true } });
    out = await testState(chain, { stateName: out.nextState!, input: out.output! });
    expect({ status: out.status, next: out.nextState }).toEqual({ status: 'SUCCEEDED', next: undefined });
  });
});

describe('TestState through the aws CLI', () => {
  it('stepfunctions test-state answers a DEBUG Pass test and refuses a bad mock', async () => {
    await requireClient('aws');
    // Debian's CLI (2.9) predates TestState: it reads the action's model from AWS_DATA_PATH (AWS's botocore model cut
    // to TestState, without its `sync-` host prefix, which a local endpoint does not have).
    const aws = (...args: string[]) => run(AWS, ['stepfunctions', 'test-state', ...args, '--endpoint-url', client.endpoint, '--region', 'us-east-1', '--output', 'json'], 90_000, { AWS_DATA_PATH: MODELS });
    const [ok, bad] = await Promise.all([
      aws('--definition', JSON.stringify({ Type: 'Pass', InputPath: '$.payload', Parameters: { data: 1 }, ResultPath: '$.result', OutputPath: '$.result.data', Next: 'Another State' }),
        '--input', '{"payload": {"foo": "bar"}}', '--inspection-level', 'DEBUG'),
      aws('--definition', JSON.stringify(PASS), '--mock', '{"result": "{}"}'),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    const answer = JSON.parse(ok.stdout);
    expect(answer).toMatchObject({ output: '1', nextState: 'Another State', status: 'SUCCEEDED' });
    expect(JSON.parse(answer.inspectionData.afterResultPath)).toEqual({ payload: { foo: 'bar' }, result: { data: 1 } });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('ValidationException');
  }, 240_000);
});
