import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config.js';
import { hasTestCase, loadMockConfig, MockConfigError, mockedResult, parseMockConfig, type MockConfig } from '../../src/sfn/mocks/mock-config.js';
import { createMockHook, type TestCaseRecords } from '../../src/sfn/mocks/mock-hook.js';

/** The example of AWS's page "Configuration file for mocked service integrations", as written there. */
const AWS_EXAMPLE = {
  StateMachines: {
    LambdaSQSIntegration: {
      TestCases: {
        HappyPath: { LambdaState: 'MockedLambdaSuccess', SQSState: 'MockedSQSSuccess' },
        RetryPath: { LambdaState: 'MockedLambdaRetry', SQSState: 'MockedSQSSuccess' },
        HybridPath: { LambdaState: 'MockedLambdaSuccess' },
      },
    },
  },
  MockedResponses: {
    MockedLambdaSuccess: { 0: { Return: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } } } },
    LambdaMockedResourceNotReady: { 0: { Throw: { Error: 'Lambda.ResourceNotReadyException', Cause: 'Lambda resource is not ready.' } } },
    MockedSQSSuccess: { 0: { Return: { MD5OfMessageBody: '3bcb6e8e-7h85-4375-b0bc-1a59812c6e51', MessageId: '3bcb6e8e-8b51-4375-b0bc-1a59812c6e51' } } },
    MockedLambdaRetry: {
      0: { Throw: { Error: 'Lambda.ResourceNotReadyException', Cause: 'Lambda resource is not ready.' } },
      '1-2': { Throw: { Error: 'Lambda.TimeoutException', Cause: 'Lambda timed out.' } },
      3: { Return: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } } },
    },
  },
};

const config = (o: unknown): MockConfig => parseMockConfig(JSON.stringify(o), 'test.json');
const problem = (text: string): string => {
  try {
    parseMockConfig(text, 'test.json');
  } catch (e) {
    expect(e).toBeInstanceOf(MockConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
};
const lookup = (c: MockConfig, testCase: string, stateName: string, attempt: number, stateMachineName = 'LambdaSQSIntegration') =>
  mockedResult(c, { stateMachineName, testCase, stateName, attempt });

describe('mock configuration: lookups', () => {
  const c = config(AWS_EXAMPLE);

  it('answers a mocked state with its Return for invocation 0 (HappyPath)', () => {
    expect(lookup(c, 'HappyPath', 'LambdaState', 0)).toEqual({ ok: true, output: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } } });
    expect(lookup(c, 'HappyPath', 'SQSState', 0)).toEqual({ ok: true, output: AWS_EXAMPLE.MockedResponses.MockedSQSSuccess[0].Return });
  });

  it('walks the invocations of a retried state: "0", then the range "1-2" twice, then "3" (RetryPath)', () => {
    expect([0, 1, 2, 3].map((n) => lookup(c, 'RetryPath', 'LambdaState', n))).toEqual([
      { ok: false, error: 'Lambda.ResourceNotReadyException', cause: 'Lambda resource is not ready.' },
      { ok: false, error: 'Lambda.TimeoutException', cause: 'Lambda timed out.' },
      { ok: false, error: 'Lambda.TimeoutException', cause: 'Lambda timed out.' },
      { ok: true, output: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } } },
    ]);
  });

  it('fails an invocation past the last entry with States.Runtime (a mock must cover every invocation)', () => {
    expect(lookup(c, 'RetryPath', 'LambdaState', 4)).toEqual({
      ok: false, error: 'States.Runtime',
      cause: "The mocked response 'MockedLambdaRetry' of state 'LambdaState' in test case 'RetryPath' has no entry for invocation 4.",
    });
    expect(lookup(c, 'HappyPath', 'SQSState', 1)).toMatchObject({ ok: false, error: 'States.Runtime' });
  });

  it('leaves a state the test case does not name unmocked (HybridPath: SQSState calls its service)', () => {
    expect(lookup(c, 'HybridPath', 'SQSState', 0)).toBeUndefined();
    expect(lookup(c, 'HybridPath', 'LambdaState', 0)).toMatchObject({ ok: true });
  });

  it('knows its state machines and test cases by name', () => {
    expect(hasTestCase(c, 'LambdaSQSIntegration', 'RetryPath')).toBe(true);
    expect(hasTestCase(c, 'LambdaSQSIntegration', 'SadPath')).toBe(false);
    expect(hasTestCase(c, 'Other', 'HappyPath')).toBe(false);
    expect(lookup(c, 'HappyPath', 'LambdaState', 0, 'Other')).toBeUndefined();
  });

  it('returns a Return of any JSON value, and a copy each time', () => {
    const v = config({ StateMachines: { M: { TestCases: { T: { A: 'S', B: 'N', C: 'L' } } } },
      MockedResponses: { S: { 0: { Return: 'text' } }, N: { 0: { Return: null } }, L: { 0: { Return: [1, { a: 2 }] } } } });
    expect(['A', 'B', 'C'].map((s) => lookup(v, 'T', s, 0, 'M'))).toEqual([{ ok: true, output: 'text' }, { ok: true, output: null }, { ok: true, output: [1, { a: 2 }] }]);
    const first = lookup(v, 'T', 'C', 0, 'M') as { output: unknown[] };
    first.output.push('changed');
    expect(lookup(v, 'T', 'C', 0, 'M')).toEqual({ ok: true, output: [1, { a: 2 }] });
  });

  it('accepts gaps and an entry with no invocations (as Step Functions Local does): those invocations fail at run time', () => {
    const v = config({ StateMachines: { M: { TestCases: { T: { A: 'Late', B: 'Empty' } } } },
      MockedResponses: { Late: { 1: { Return: { ok: 1 } } }, Empty: {} } });
    expect(lookup(v, 'T', 'A', 0, 'M')).toMatchObject({ ok: false, error: 'States.Runtime' });
    expect(lookup(v, 'T', 'A', 1, 'M')).toEqual({ ok: true, output: { ok: 1 } });
    expect(lookup(v, 'T', 'B', 0, 'M')).toMatchObject({ ok: false, error: 'States.Runtime' });
  });
});

describe('mock configuration: a file that cannot be used is refused, naming the problem', () => {
  const valid = (patch: (o: typeof AWS_EXAMPLE & Record<string, unknown>) => void): string => {
    const o = structuredClone(AWS_EXAMPLE) as typeof AWS_EXAMPLE & Record<string, unknown>;
    patch(o);
    return JSON.stringify(o);
  };
  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"StateMachines": ', /^mock configuration test\.json: is not JSON/],
    ['not an object', '[]', /must be a JSON object with StateMachines and MockedResponses, got an array/],
    ['no StateMachines', JSON.stringify({ MockedResponses: {} }), /StateMachines must be an object, got nothing/],
    ['no MockedResponses', JSON.stringify({ StateMachines: {} }), /MockedResponses must be an object, got nothing/],
    ['a misspelt top-level field', valid((o) => { o.MockedResponse = {}; }), /unknown top-level field "MockedResponse"/],
    ['a state machine without TestCases', valid((o) => { (o.StateMachines as Record<string, unknown>).X = { TestCase: {} }; }), /StateMachines\.X: unknown field "TestCase"/],
    ['a test case that is not an object', valid((o) => { (o.StateMachines.LambdaSQSIntegration.TestCases as Record<string, unknown>).Bad = 'MockedSQSSuccess'; }),
      /StateMachines\.LambdaSQSIntegration\.TestCases\.Bad must be an object of state name to mocked response name, got a string/],
    ['a state naming a response that does not exist', valid((o) => { (o.StateMachines.LambdaSQSIntegration.TestCases.HybridPath as Record<string, string>).SQSState = 'MockedSQSSucess'; }),
      /TestCases\.HybridPath\.SQSState names the mocked response "MockedSQSSucess", which MockedResponses does not define/],
    ['a state naming a response by a number', valid((o) => { (o.StateMachines.LambdaSQSIntegration.TestCases.HybridPath as Record<string, unknown>).SQSState = 3; }),
      /HybridPath\.SQSState must name a mocked response \(a string\), got a number/],
    ['an invocation key that is not a number', valid((o) => { (o.MockedResponses.MockedSQSSuccess as Record<string, unknown>).first = { Return: {} }; }),
      /MockedResponses\.MockedSQSSuccess\.first: "first" is not an invocation number \("0"\) or an inclusive range \("1-2"\)/],
    ['a range that ends before it starts', valid((o) => { (o.MockedResponses.MockedSQSSuccess as Record<string, unknown>)['3-1'] = { Return: {} }; }),
      /MockedSQSSuccess\."3-1": the range ends before it starts/],
    ['overlapping invocations', valid((o) => { (o.MockedResponses.MockedLambdaRetry as Record<string, unknown>)['2-5'] = { Return: {} }; }),
      /MockedLambdaRetry\."2-5" overlaps "3": each invocation has one response/],
    ['Return and Throw together', valid((o) => { (o.MockedResponses.MockedSQSSuccess as Record<string, unknown>)[1] = { Return: {}, Throw: { Error: 'E', Cause: 'C' } }; }),
      /MockedSQSSuccess\."1" must hold exactly one field, Return or Throw, got "Return", "Throw"/],
    ['neither Return nor Throw', valid((o) => { (o.MockedResponses.MockedSQSSuccess as Record<string, unknown>)[1] = {}; }),
      /MockedSQSSuccess\."1" must hold exactly one field, Return or Throw, got none/],
    ['a Throw without its Cause', valid((o) => { (o.MockedResponses.LambdaMockedResourceNotReady[0].Throw as Record<string, unknown>).Cause = undefined; }),
      /LambdaMockedResourceNotReady\."0"\.Throw\.Cause must be a string, got nothing/],
    ['a Throw whose Error is not a string', valid((o) => { (o.MockedResponses.LambdaMockedResourceNotReady[0].Throw as Record<string, unknown>).Error = 5; }),
      /Throw\.Error must be a non-empty string, got a number/],
    ['a Throw with another field', valid((o) => { (o.MockedResponses.LambdaMockedResourceNotReady[0].Throw as Record<string, unknown>).Message = 'm'; }),
      /Throw: unknown field "Message" \(expected Error and Cause\)/],
    ['an Error longer than TaskFailed allows', valid((o) => { o.MockedResponses.LambdaMockedResourceNotReady[0].Throw.Error = 'E'.repeat(257); }),
      /Throw\.Error is longer than 256 characters/],
    ['a Return larger than a payload may be', valid((o) => { (o.MockedResponses.MockedSQSSuccess[0] as Record<string, unknown>).Return = 'x'.repeat(262_144); }),
      /MockedSQSSuccess\."0"\.Return exceeds the maximum size of 262144 bytes/],
    ['a test case given twice', '{"StateMachines":{"M":{"TestCases":{"T":{},"T":{}}}},"MockedResponses":{}}', /"T" appears twice in \/StateMachines\/M\/TestCases/],
  ];
  for (const [what, text, message] of cases) {
    it(what, () => expect(problem(text)).toMatch(message));
  }

  it('names a file that cannot be read', async () => {
    await expect(loadMockConfig('/nonexistent/MockConfigFile.json')).rejects.toThrow(/^mock configuration \/nonexistent\/MockConfigFile\.json: cannot be read \(ENOENT/);
  });

  it('reads a file from disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'af-mock-'));
    try {
      await writeFile(join(dir, 'MockConfigFile.json'), JSON.stringify(AWS_EXAMPLE));
      const c = await loadMockConfig(join(dir, 'MockConfigFile.json'));
      expect(hasTestCase(c, 'LambdaSQSIntegration', 'HappyPath')).toBe(true);
      await writeFile(join(dir, 'bad.json'), '{"StateMachines": {}}');
      await expect(loadMockConfig(join(dir, 'bad.json'))).rejects.toThrow(`mock configuration ${join(dir, 'bad.json')}: MockedResponses must be an object, got nothing`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('mock configuration: where the node finds it', () => {
  it('takes AF_SFN_MOCK_CONFIG, else SFN_MOCK_CONFIG (Step Functions Local\'s variable), and an option beats both', () => {
    expect(resolveOptions({}, {}).sfnMockConfig).toBeUndefined();
    expect(resolveOptions({}, { SFN_MOCK_CONFIG: '/a.json' }).sfnMockConfig).toBe('/a.json');
    expect(resolveOptions({}, { SFN_MOCK_CONFIG: '/a.json', AF_SFN_MOCK_CONFIG: '/b.json' }).sfnMockConfig).toBe('/b.json');
    expect(resolveOptions({ sfnMockConfig: '/c.json' }, { AF_SFN_MOCK_CONFIG: '/b.json' }).sfnMockConfig).toBe('/c.json');
    expect(resolveOptions({}, { AF_SFN_MOCK_CONFIG: '' }).sfnMockConfig).toBeUndefined();
  });
});

describe('the mock hook', () => {
  const c = config(AWS_EXAMPLE);
  const arn = (sm: string, name: string) => `arn:aws:states:us-east-1:000000000000:execution:${sm}:${name}`;
  const recordsOf = (held: Record<string, string | undefined>) => {
    const reads: string[] = [];
    const records: TestCaseRecords = {
      async get(stateMachineName, name) {
        reads.push(`${stateMachineName}/${name}`);
        const key = `${stateMachineName}/${name}`;
        return key in held ? { executionArn: arn(stateMachineName, name), stateMachineName, ...(held[key] ? { mockTestCase: held[key] } : {}) } : undefined;
      },
    };
    return { records, reads };
  };
  const ask = (hook: ReturnType<typeof createMockHook>, executionArn: string, stateName: string, attempt = 0) =>
    hook({ executionArn, stateName, resource: 'arn:aws:states:::lambda:invoke', attempt });

  it('answers from the execution\'s test case, reading its record once per execution', async () => {
    const { records, reads } = recordsOf({ 'LambdaSQSIntegration/e1': 'RetryPath' });
    const hook = createMockHook(c, records);
    expect(await ask(hook, arn('LambdaSQSIntegration', 'e1'), 'LambdaState', 0)).toMatchObject({ ok: false, error: 'Lambda.ResourceNotReadyException' });
    expect(await ask(hook, arn('LambdaSQSIntegration', 'e1'), 'LambdaState', 3)).toMatchObject({ ok: true });
    expect(await ask(hook, arn('LambdaSQSIntegration', 'e1'), 'SQSState', 0)).toMatchObject({ ok: true });
    expect(reads).toEqual(['LambdaSQSIntegration/e1']);
  });

  it('leaves executions started without a test case alone (cached too), and does not cache a record it could not read', async () => {
    const { records, reads } = recordsOf({ 'LambdaSQSIntegration/plain': undefined });
    const hook = createMockHook(c, records);
    expect(await ask(hook, arn('LambdaSQSIntegration', 'plain'), 'LambdaState')).toBeUndefined();
    expect(await ask(hook, arn('LambdaSQSIntegration', 'plain'), 'LambdaState')).toBeUndefined();
    expect(await ask(hook, arn('LambdaSQSIntegration', 'missing'), 'LambdaState')).toBeUndefined();
    expect(await ask(hook, arn('LambdaSQSIntegration', 'missing'), 'LambdaState')).toBeUndefined();
    expect(reads).toEqual(['LambdaSQSIntegration/plain', 'LambdaSQSIntegration/missing', 'LambdaSQSIntegration/missing']);
  });
});
