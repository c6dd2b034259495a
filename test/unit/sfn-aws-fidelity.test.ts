import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnRecord } from '../../src/sfn/compile/contract.js';
import { resolveCause } from '../../src/sfn/compile/state-cause.js';
import { WAIT_TOO_LONG } from '../../src/sfn/compile/wait-state.js';
import { StoredText } from '../../src/sfn/kind/stored-text.js';
import { executionInput, runCase, SFN_T0, testHooks, type SfnCase, type SfnRun } from '../helpers/sfn-driver.js';
import { A, single, task } from './sfn-case-builders.js';

/*
 * Facts measured on AWS recordings (LocalStack's snapshot tests, recorded against AWS): the texts of
 * runtime failures, the Fail state without Error/Cause, ActivityTimedOut without a cause, the wait
 * limit, the context object's members and order, and the stored text of payloads.
 */

/** A cause as the host stores it: event ids as the host gives them (ExecutionStarted is #1). */
function stored(run: SfnRun, cause: string | undefined): string | undefined {
  if (cause === undefined) return undefined;
  const entered = new Map<string, [number, string]>();
  run.events.forEach((e, i) => {
    if (e.record.type.endsWith('StateEntered')) entered.set(e.actorId, [i + 2, String(e.record.details?.name)]);
  });
  return resolveCause(cause, (id) => entered.get(id));
}

function failure(c: Omit<SfnCase, 'name' | 'expect'>) {
  const run = runCase({ name: 'fact', expect: { status: 'FAILED' }, ...c });
  const out = run.output as { status: string; error?: string; cause?: string };
  return { run, status: out.status, error: out.error, cause: stored(run, out.cause), out };
}

const waitOn = (field: string, path: string) => ({ StartAt: 'W', States: { W: { Type: 'Wait', [field]: path, End: true } } });

describe('runtime failure causes in AWS wording', () => {
  it('a negative SecondsPath value', () => {
    const f = failure({ definition: waitOn('SecondsPath', '$.input.waitSeconds'), input: { input: { waitSeconds: -1 } } });
    expect([f.error, f.cause]).toEqual(['States.Runtime',
      "An error occurred while executing the state 'W' (entered at the event id #2). The SecondsPath parameter references a negative value: $.input.waitSeconds == -1"]);
  });

  it('a SecondsPath value that is not a whole number', () => {
    const f = failure({ definition: waitOn('SecondsPath', '$.s'), input: { s: 1.5 } });
    expect(f.cause).toBe("An error occurred while executing the state 'W' (entered at the event id #2). The SecondsPath parameter cannot be parsed as a long value: $.s == 1.5");
  });

  it('a SecondsPath that matches nothing', () => {
    const f = failure({ definition: waitOn('SecondsPath', '$.s'), input: {} });
    expect(f.cause).toBe("An error occurred while executing the state 'W' (entered at the event id #2). The SecondsPath parameter does not reference an input value: $.s");
  });

  it('a TimestampPath value without a time zone fails with States.Runtime', () => {
    for (const t of ['2024-01-01T00:00:10', '2024-01-01T00:00:10.000000', '2024-01-01 00:00:10Z']) {
      const f = failure({ definition: waitOn('TimestampPath', '$.start_at'), input: { start_at: t } });
      expect([f.error, f.cause]).toEqual(['States.Runtime',
        `An error occurred while executing the state 'W' (entered at the event id #2). The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: $.start_at == ${t}`]);
    }
  });

  it('TimestampPath values with a zone, with or without fractions, wait until then (whole seconds)', () => {
    for (const t of ['2024-01-01T00:00:10Z', '2024-01-01T00:00:10.000000Z', '2024-01-01T00:00:10.5Z', '2024-01-01T01:00:10+01:00']) {
      const run = runCase({ name: t, definition: waitOn('TimestampPath', '$.t'), input: { t }, expect: { status: 'SUCCEEDED', output: { t } } });
      expect(run.output.status).toBe('SUCCEEDED');
      expect(run.events.at(-1)!.at - SFN_T0).toBe(10_000);
    }
  });

  it('an InputPath that matches nothing names the state, its entered event and the path', () => {
    const f = failure({ definition: { StartAt: 'P0', States: { P0: { Type: 'Pass', Next: 'P' }, P: { Type: 'Pass', InputPath: '$.nope', End: true } } } });
    expect([f.error, f.cause]).toEqual(['States.Runtime',
      "An error occurred while executing the state 'P' (entered at the event id #4). Invalid path '$.nope' : No results for path: $['nope']"]);
  });

  it('an ErrorPath that matches nothing names it as No results for path: $[\'ErrorX\']', () => {
    const f = failure({ definition: { StartAt: 'F', States: { F: { Type: 'Fail', ErrorPath: '$.ErrorX', Cause: 'c' } } } });
    expect([f.error, f.cause]).toEqual(['States.Runtime',
      "An error occurred while executing the state 'F' (entered at the event id #2). Invalid path '$.ErrorX' : No results for path: $['ErrorX']"]);
  });

  it('a cause inside a Parallel branch names the branch state and its own entered event', () => {
    const f = failure({
      definition: { StartAt: 'P', States: { P: { Type: 'Parallel', End: true, Branches: [{ StartAt: 'W', States: { W: { Type: 'Wait', SecondsPath: '$.s', End: true } } }] } } },
      input: { s: -2 },
    });
    const wIndex = f.run.events.findIndex((e) => e.record.type === 'WaitStateEntered');
    expect(f.cause).toBe(`An error occurred while executing the state 'W' (entered at the event id #${wIndex + 2}). The SecondsPath parameter references a negative value: $.s == -2`);
  });
});

describe('Fail states', () => {
  it('without Error and Cause: the execution fails with neither member', () => {
    const f = failure({ definition: { StartAt: 'F', States: { F: { Type: 'Fail' } } } });
    expect(f.out).toEqual({ status: 'FAILED' });
    expect(f.run.events.at(-1)!.record).toEqual({ type: 'ExecutionFailed', details: {} });
  });

  it('ErrorPath and CausePath may be intrinsic functions; their values are the error and the cause', () => {
    const f = failure({
      definition: { StartAt: 'F', States: { F: { Type: 'Fail', ErrorPath: "States.Format('{}.Failed', $.kind)", CausePath: "States.Format('order {} of {}', $.id, $$.Execution.Name)" } } },
      input: { kind: 'Payment', id: 7 },
    });
    expect(f.out).toEqual({ status: 'FAILED', error: 'Payment.Failed', cause: 'order 7 of exec-1' });
  });
});

describe('Task timeouts', () => {
  // AWS records States.Timeout for both: a Retry or Catch alone may name a missed heartbeat apart.
  it('ActivityTimedOut carries the error and no cause, and so does the execution failure', () => {
    for (const [state, answer, error] of [[{ TimeoutSeconds: 5 }, { silent: true }, 'States.Timeout'], [{ HeartbeatSeconds: 5 }, { startSilent: true }, 'States.Timeout']] as const) {
      const run = runCase({ name: JSON.stringify(state), definition: single(task(state)), worker: [answer], expect: { status: 'FAILED' } });
      expect(run.events.find((e) => e.record.type === 'ActivityTimedOut')!.record.details).toEqual({ error });
      expect(run.output).toEqual({ status: 'FAILED', error });
    }
  });
});

describe('the Wait limit', () => {
  /** Starts a one-Wait execution and returns the actor's status and its records after start. */
  function startWait(input: unknown) {
    const clock = new SimulatedClock();
    clock.set(SFN_T0);
    const records: SfnRecord[] = [];
    const { machine } = compileStateMachine(parseDefinition(JSON.stringify(waitOn('TimestampPath', '$.t'))), { clock, hooks: testHooks((_id: string, r: SfnRecord) => { records.push(r); }, input) });
    const actor = createActor(machine, { id: 'root', clock, input: executionInput(input) }).start();
    const snap = actor.getSnapshot();
    actor.stop();
    return { status: snap.status, output: snap.output, types: records.map((r) => r.type) };
  }
  const days = (n: number) => new Date(SFN_T0 + n * 86_400_000).toISOString().replace('.000Z', 'Z');

  it('waits 24,855 days, as AWS does', () => {
    expect(startWait({ t: days(24_855) })).toMatchObject({ status: 'active', types: ['WaitStateEntered'] });
  });

  it('fails a wait of 24,856 days with States.Runtime: Wait state delay is too long', () => {
    expect(startWait({ t: days(24_856) })).toEqual({
      status: 'done', output: { status: 'FAILED', error: 'States.Runtime', cause: WAIT_TOO_LONG }, types: ['WaitStateEntered', 'ExecutionFailed'],
    });
    expect(WAIT_TOO_LONG).toBe('Wait state delay is too long');
  });
});

describe('the context object', () => {
  it('has AWS\'s members in AWS\'s order, with Execution.RedriveCount 0 and no State.RetryCount', () => {
    const run = runCase({ name: '$$', definition: single({ Type: 'Pass', Parameters: { 'co.$': '$$' } }), input: { q: 1 }, expect: { status: 'SUCCEEDED', output: null } });
    const co = (run.output as { output: { co: unknown } }).output.co;
    expect(JSON.stringify(co)).toBe(JSON.stringify({
      Execution: {
        Id: 'arn:aws:states:us-east-1:123456789012:execution:sm:exec-1', Input: { q: 1 }, StartTime: '2024-01-01T00:00:00.000Z',
        Name: 'exec-1', RoleArn: 'arn:aws:iam::123456789012:role/r', RedriveCount: 0,
      },
      StateMachine: { Id: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm', Name: 'sm' },
      State: { Name: 'S', EnteredTime: '2024-01-01T00:00:00.000Z' },
    }));
  });

  it('$$.State.RetryCount does not exist', () => {
    const f = failure({ definition: single({ Type: 'Pass', Parameters: { 'n.$': '$$.State.RetryCount' } }) });
    expect(f.error).toBe('States.ParameterPathFailure');
  });

  it('a Task state sees the same members', () => {
    const run = runCase({ name: 'task $$', definition: single(task({ Parameters: { 'co.$': '$$' } })), worker: [{ output: 1 }], expect: { status: 'SUCCEEDED', output: 1 } });
    const input = JSON.parse(run.events.find((e) => e.record.type === 'ActivityScheduled')!.record.task!.input) as { co: Record<string, unknown> };
    expect(Object.keys(input.co)).toEqual(['Execution', 'StateMachine', 'State']);
    expect(input.co.State).toEqual({ Name: 'S', EnteredTime: '2024-01-01T00:00:00.000Z' });
    expect(A).toContain(':activity:');
  });
});

describe('stored payload text', () => {
  const text = new StoredText('["Hello", "World"]');

  it('keeps the execution input\'s own text for a payload that is the same value', () => {
    expect(text.json('["Hello","World"]')).toBe('["Hello", "World"]');
    expect(text.json('["Hello","World","!"]')).toBe('["Hello","World","!"]');
    expect(text.details({ name: 'P', output: '["Hello","World"]', outputDetails: { truncated: false } }, () => undefined))
      .toEqual({ name: 'P', output: '["Hello", "World"]', outputDetails: { truncated: false } });
  });

  it('resolves a marked cause with the state and event id, and leaves other causes alone', () => {
    expect(text.details({ error: 'E', cause: 'plain' }, () => [9, 'X'])).toEqual({ error: 'E', cause: 'plain' });
  });
});

describe('paths and intrinsics', () => {
  it("States.StringToJson('') returns null", () => {
    const run = runCase({
      name: 'StringToJson', definition: single({ Type: 'Pass', Parameters: { 'a.$': "States.StringToJson('')", 'b.$': 'States.StringToJson($.s)' } }),
      input: { s: '' }, expect: { status: 'SUCCEEDED', output: null },
    });
    expect(run.output).toEqual({ status: 'SUCCEEDED', output: { a: null, b: null } });
  });

  it("a bracket path with escaped quotes ($['a\\'b']) resolves in InputPath, Parameters, intrinsics and Choice", () => {
    const run = runCase({
      name: 'quotes',
      definition: {
        StartAt: 'P',
        States: {
          P: { Type: 'Pass', InputPath: "$['a\\'b']", Parameters: { 'v.$': '$["c\\"d"]', 'w.$': "States.Format('{}', $['e\\'f'])" }, Next: 'C' },
          C: { Type: 'Choice', Choices: [{ Variable: "$['v']", NumericEquals: 3, Next: 'Y' }], Default: 'N' },
          Y: { Type: 'Succeed' },
          N: { Type: 'Fail' },
        },
      },
      input: { "a'b": { 'c"d': 3, "e'f": 'x' } }, expect: { status: 'SUCCEEDED', output: null },
    });
    expect(run.output).toEqual({ status: 'SUCCEEDED', output: { v: 3, w: 'x' } });
  });
});
