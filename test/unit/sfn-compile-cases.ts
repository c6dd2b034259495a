import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { SfnExecutionOutput } from '../../src/sfn/compile/contract.js';
import { SFN_T0, type SfnCase, type SfnRun } from '../helpers/sfn-driver.js';

/** The table of small state machines run by sfn-compile-table.test.ts (plain and crash-at-every-step). */

const A = 'arn:aws:states:us-east-1:123456789012:activity:work';
const S = 1000;
const ok = (output: unknown): SfnExecutionOutput => ({ status: 'SUCCEEDED', output });
const failed = (error: string, cause?: string): SfnExecutionOutput => ({ status: 'FAILED', error, ...(cause !== undefined ? { cause } : {}) });
const task = (extra: Record<string, unknown> = {}) => ({ Type: 'Task', Resource: A, ...extra });
const terminal = (state: Record<string, unknown>) => ['Fail', 'Succeed', 'Choice'].includes(state.Type as string);
const single = (state: Record<string, unknown>) => ({ StartAt: 'S', States: { S: terminal(state) ? state : { ...state, End: true } } });
const at = (run: SfnRun, type: string, nth = 0) => run.events.filter((e) => e.record.type === type)[nth].at - SFN_T0;
const scheduledInput = (run: SfnRun, nth = 0) => JSON.parse(run.events.filter((e) => e.record.type === 'ActivityScheduled')[nth].record.task!.input);

/** Choice between Yes/No for one rule: the rule combines an operator and its …Path twin with And. */
function choose(name: string, rule: Record<string, unknown>, input: unknown, answer: 'yes' | 'no'): SfnCase {
  return {
    name: `Choice ${name} → ${answer}`,
    definition: {
      StartAt: 'C',
      States: {
        C: { Type: 'Choice', Choices: [{ ...rule, Next: 'Yes' }], Default: 'No' },
        Yes: { Type: 'Pass', Result: 'yes', End: true },
        No: { Type: 'Pass', Result: 'no', End: true },
      },
    },
    input,
    expect: ok(answer),
  };
}
const twin = (op: string, value: unknown, v = '$.v') => ({ And: [{ Variable: v, [op]: value }, { Variable: v, [`${op}Path`]: '$.ref' }] });

const choiceCases: SfnCase[] = [
  choose('StringEquals', twin('StringEquals', 'abc'), { v: 'abc', ref: 'abc' }, 'yes'),
  choose('StringLessThan', twin('StringLessThan', 'b'), { v: 'a', ref: 'b' }, 'yes'),
  choose('StringGreaterThan', twin('StringGreaterThan', 'a'), { v: 'b', ref: 'a' }, 'yes'),
  choose('StringLessThanEquals', twin('StringLessThanEquals', 'a'), { v: 'a', ref: 'b' }, 'yes'),
  choose('StringGreaterThanEquals', twin('StringGreaterThanEquals', 'b'), { v: 'b', ref: 'c' }, 'no'),
  choose('StringMatches', { Variable: '$.v', StringMatches: 'log-*.txt' }, { v: 'log-2024.txt' }, 'yes'),
  choose('NumericEquals', twin('NumericEquals', 3), { v: 3, ref: 3 }, 'yes'),
  choose('NumericLessThan', twin('NumericLessThan', 5), { v: 3, ref: 4 }, 'yes'),
  choose('NumericGreaterThan', twin('NumericGreaterThan', 2), { v: 3, ref: 3 }, 'no'),
  choose('NumericLessThanEquals', twin('NumericLessThanEquals', 3), { v: 3, ref: 3 }, 'yes'),
  choose('NumericGreaterThanEquals', twin('NumericGreaterThanEquals', 3), { v: 3.5, ref: 1 }, 'yes'),
  choose('BooleanEquals', twin('BooleanEquals', true), { v: true, ref: true }, 'yes'),
  choose('TimestampEquals', twin('TimestampEquals', '2024-01-01T00:00:00Z'), { v: '2024-01-01T00:00:00Z', ref: '2024-01-01T00:00:00Z' }, 'yes'),
  choose('TimestampLessThan', twin('TimestampLessThan', '2024-06-01T00:00:00Z'), { v: '2024-01-01T00:00:00Z', ref: '2024-02-01T00:00:00Z' }, 'yes'),
  choose('TimestampGreaterThan', twin('TimestampGreaterThan', '2023-01-01T00:00:00Z'), { v: '2024-01-01T00:00:00Z', ref: '2025-01-01T00:00:00Z' }, 'no'),
  choose('TimestampLessThanEquals', twin('TimestampLessThanEquals', '2024-01-01T00:00:00Z'), { v: '2024-01-01T00:00:00Z', ref: '2024-01-01T00:00:00Z' }, 'yes'),
  choose('TimestampGreaterThanEquals', twin('TimestampGreaterThanEquals', '2024-01-01T00:00:00Z'), { v: '2024-03-01T00:00:00Z', ref: '2024-02-01T00:00:00Z' }, 'yes'),
  choose('IsNull', { Variable: '$.v', IsNull: true }, { v: null }, 'yes'),
  choose('IsPresent false', { Variable: '$.missing', IsPresent: false }, { v: 1 }, 'yes'),
  choose('IsNumeric', { Variable: '$.v', IsNumeric: true }, { v: '3' }, 'no'),
  choose('IsString', { Variable: '$.v', IsString: true }, { v: '3' }, 'yes'),
  choose('IsBoolean', { Variable: '$.v', IsBoolean: true }, { v: false }, 'yes'),
  choose('IsTimestamp', { Variable: '$.v', IsTimestamp: true }, { v: '2024-01-01T00:00:00Z' }, 'yes'),
  choose('Or', { Or: [{ Variable: '$.v', NumericEquals: 1 }, { Variable: '$.v', NumericEquals: 2 }] }, { v: 2 }, 'yes'),
  choose('Not', { Not: { Variable: '$.v', StringEquals: 'x' } }, { v: 'x' }, 'no'),
  {
    name: 'Choice: the first matching rule wins, its Next is taken, OutputPath applies',
    definition: {
      StartAt: 'C',
      States: {
        C: { Type: 'Choice', OutputPath: '$.keep', Choices: [{ Variable: '$.n', NumericGreaterThan: 10, Next: 'Big' }, { Variable: '$.n', NumericGreaterThan: 1, Next: 'Mid' }], Default: 'Small' },
        Big: { Type: 'Pass', Result: 'big', End: true },
        Mid: { Type: 'Pass', ResultPath: '$.size', Result: 'mid', End: true },
        Small: { Type: 'Pass', Result: 'small', End: true },
      },
    },
    input: { n: 5, keep: { k: 1 } },
    expect: ok({ k: 1, size: 'mid' }),
    events: ['ChoiceStateEntered', 'ChoiceStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Choice: no rule and no Default → States.NoChoiceMatched',
    definition: { StartAt: 'C', States: { C: { Type: 'Choice', Choices: [{ Variable: '$.n', NumericEquals: 1, Next: 'D' }] }, D: { Type: 'Succeed' } } },
    input: { n: 2 },
    expect: failed('States.NoChoiceMatched'),
    events: ['ChoiceStateEntered', 'ExecutionFailed'],
  },
  {
    name: 'Choice: a missing Variable fails with States.Runtime',
    definition: { StartAt: 'C', States: { C: { Type: 'Choice', Choices: [{ Variable: '$.nope', NumericEquals: 1, Next: 'D' }], Default: 'D' }, D: { Type: 'Succeed' } } },
    input: { n: 2 },
    expect: failed('States.Runtime'),
  },
  {
    name: 'Choice loop with a Task: counts down through a worker',
    definition: {
      StartAt: 'Check',
      States: {
        Check: { Type: 'Choice', Choices: [{ Variable: '$.n', NumericGreaterThan: 0, Next: 'Work' }], Default: 'Done' },
        Work: { Type: 'Task', Resource: A, Next: 'Check' },
        Done: { Type: 'Succeed' },
      },
    },
    input: { n: 2 },
    worker: [{ output: { n: 1 } }, { output: { n: 0 } }],
    expect: ok({ n: 0 }),
  },
];

const intrinsicCases: SfnCase[] = [
  {
    name: 'Intrinsics: Format, StringToJson, JsonToString',
    definition: single({ Type: 'Pass', Parameters: { 'f.$': "States.Format('Hello {}, you are {}', $.name, $.age)", 'j.$': 'States.StringToJson($.s)', 't.$': 'States.JsonToString($.o)' } }),
    input: { name: 'Ann', age: 30, s: '{"a":[1,2]}', o: { b: true } },
    expect: ok({ f: 'Hello Ann, you are 30', j: { a: [1, 2] }, t: '{"b":true}' }),
  },
  {
    name: 'Intrinsics: Array, ArrayPartition, ArrayContains, ArrayRange',
    definition: single({ Type: 'Pass', Parameters: { 'a.$': "States.Array(1, 'two', $.n)", 'p.$': 'States.ArrayPartition($.arr, 2)', 'c.$': 'States.ArrayContains($.arr, 3)', 'r.$': 'States.ArrayRange(1, 9, 2)' } }),
    input: { n: 3, arr: [1, 2, 3, 4, 5] },
    expect: ok({ a: [1, 'two', 3], p: [[1, 2], [3, 4], [5]], c: true, r: [1, 3, 5, 7, 9] }),
  },
  {
    name: 'Intrinsics: ArrayGetItem, ArrayLength, ArrayUnique',
    definition: single({ Type: 'Pass', Parameters: { 'g.$': 'States.ArrayGetItem($.arr, 1)', 'l.$': 'States.ArrayLength($.arr)', 'u.$': 'States.ArrayUnique($.dup)' } }),
    input: { arr: [10, 20, 30], dup: [1, 2, 2, 3, 1] },
    expect: ok({ g: 20, l: 3, u: [1, 2, 3] }),
  },
  {
    name: 'Intrinsics: Base64Encode, Base64Decode, Hash',
    definition: single({ Type: 'Pass', Parameters: { 'e.$': 'States.Base64Encode($.s)', 'd.$': "States.Base64Decode('aGVsbG8=')", 'h.$': "States.Hash($.s, 'SHA-256')" } }),
    input: { s: 'hello' },
    expect: ok({ e: 'aGVsbG8=', d: 'hello', h: createHash('sha256').update('hello').digest('hex') }),
  },
  {
    name: 'Intrinsics: JsonMerge, MathAdd, StringSplit',
    definition: single({ Type: 'Pass', Parameters: { 'm.$': 'States.JsonMerge($.a, $.b, false)', 'n.$': 'States.MathAdd($.x, -3)', 's.$': "States.StringSplit($.csv, ',')" } }),
    input: { a: { p: 1, q: { r: 1 } }, b: { q: { s: 2 }, t: 3 }, x: 10, csv: 'a,b,c' },
    expect: ok({ m: { p: 1, q: { s: 2 }, t: 3 }, n: 7, s: ['a', 'b', 'c'] }),
  },
  {
    name: 'Intrinsics: MathRandom and UUID (values checked by shape)',
    definition: {
      StartAt: 'R',
      States: {
        R: { Type: 'Pass', Parameters: { 'r.$': 'States.MathRandom(5, 8)', 'u.$': 'States.UUID()' }, Next: 'C' },
        C: { Type: 'Choice', Choices: [{ And: [{ Variable: '$.r', NumericGreaterThanEquals: 5 }, { Variable: '$.r', NumericLessThanEquals: 8 }, { Variable: '$.u', StringMatches: '*-*-4*-*-*' }], Next: 'Good' }], Default: 'Bad' },
        Good: { Type: 'Pass', Result: 'random and uuid look right', End: true },
        Bad: { Type: 'Fail', Error: 'Bad' },
      },
    },
    expect: ok('random and uuid look right'),
  },
  {
    name: 'Intrinsics: a failing intrinsic is States.IntrinsicFailure',
    definition: single({ Type: 'Pass', Parameters: { 'x.$': 'States.StringToJson($.s)' } }),
    input: { s: '{not json' },
    expect: failed('States.IntrinsicFailure'),
  },
  {
    name: 'Intrinsics in a Task Parameters reach the worker',
    definition: single(task({ Parameters: { 'msg.$': "States.Format('order {}', $.id)", 'ctx.$': '$$.State.Name' } })),
    input: { id: 7 },
    worker: [{ output: 'done' }],
    expect: ok('done'),
    check: (run) => expect(scheduledInput(run)).toEqual({ msg: 'order 7', ctx: 'S' }),
  },
];

const dataFlowCases: SfnCase[] = [
  { name: 'Pass: no fields → output = input', definition: single({ Type: 'Pass' }), input: { a: 1 }, expect: ok({ a: 1 }) },
  { name: 'Pass: Result replaces the input', definition: single({ Type: 'Pass', Result: { r: 1 } }), input: { a: 1 }, expect: ok({ r: 1 }) },
  { name: 'Pass: InputPath selects', definition: single({ Type: 'Pass', InputPath: '$.a' }), input: { a: { b: 2 } }, expect: ok({ b: 2 }) },
  { name: 'Pass: InputPath null → {}', definition: single({ Type: 'Pass', InputPath: null }), input: { a: 1 }, expect: ok({}) },
  { name: 'Pass: Parameters with paths and statics', definition: single({ Type: 'Pass', Parameters: { fixed: 'x', 'v.$': '$.a.b', nested: { 'w.$': '$.c' } } }), input: { a: { b: 2 }, c: [1] }, expect: ok({ fixed: 'x', v: 2, nested: { w: [1] } }) },
  { name: 'Pass: ResultPath places the result', definition: single({ Type: 'Pass', Result: 'R', ResultPath: '$.r' }), input: { a: 1 }, expect: ok({ a: 1, r: 'R' }) },
  { name: 'Pass: ResultPath creates nested objects', definition: single({ Type: 'Pass', Result: 5, ResultPath: '$.x.y.z' }), input: { a: 1 }, expect: ok({ a: 1, x: { y: { z: 5 } } }) },
  { name: 'Pass: ResultPath null discards the result', definition: single({ Type: 'Pass', Result: 'R', ResultPath: null }), input: { a: 1 }, expect: ok({ a: 1 }) },
  { name: 'Pass: OutputPath selects', definition: single({ Type: 'Pass', Result: 'R', ResultPath: '$.r', OutputPath: '$.r' }), input: { a: 1 }, expect: ok('R') },
  { name: 'Pass: OutputPath null → {}', definition: single({ Type: 'Pass', OutputPath: null }), input: { a: 1 }, expect: ok({}) },
  { name: 'Pass: InputPath + Parameters + ResultPath + OutputPath together', definition: single({ Type: 'Pass', InputPath: '$.in', Parameters: { 'sum.$': 'States.MathAdd($.x, $.y)' }, ResultPath: '$.out', OutputPath: '$.out.sum' }), input: { in: { x: 2, y: 3 } }, expect: ok(5) },
  { name: 'Pass: a missing Parameters path → States.ParameterPathFailure', definition: single({ Type: 'Pass', Parameters: { 'v.$': '$.missing' } }), input: {}, expect: failed('States.ParameterPathFailure') },
  { name: 'Pass: ResultPath into a non-object → States.ResultPathMatchFailure', definition: single({ Type: 'Pass', Result: 1, ResultPath: '$.a.b' }), input: { a: 'text' }, expect: failed('States.ResultPathMatchFailure') },
  {
    name: 'Context object $$ fields in Parameters',
    definition: single({ Type: 'Pass', Parameters: {
      'id.$': '$$.Execution.Id', 'name.$': '$$.Execution.Name', 'role.$': '$$.Execution.RoleArn', 'start.$': '$$.Execution.StartTime',
      'input.$': '$$.Execution.Input', 'sm.$': '$$.StateMachine.Name', 'smId.$': '$$.StateMachine.Id', 'state.$': '$$.State.Name',
      'entered.$': '$$.State.EnteredTime', 'retries.$': '$$.State.RetryCount',
    } }),
    input: { q: 1 },
    expect: ok({
      id: 'arn:aws:states:us-east-1:123456789012:execution:sm:exec-1', name: 'exec-1', role: 'arn:aws:iam::123456789012:role/r',
      start: '2024-01-01T00:00:00.000Z', input: { q: 1 }, sm: 'sm', smId: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm',
      state: 'S', entered: '2024-01-01T00:00:00.000Z', retries: 0,
    }),
  },
  {
    name: 'Task: InputPath → Parameters → worker; ResultSelector → ResultPath → OutputPath',
    definition: single(task({ InputPath: '$.order', Parameters: { 'id.$': '$.id' }, ResultSelector: { 'status.$': '$.s' }, ResultPath: '$.result', OutputPath: '$.result' })),
    input: { order: { id: 9 }, other: true },
    worker: [{ output: { s: 'shipped', noise: 1 } }],
    expect: ok({ status: 'shipped' }),
    check: (run) => expect(scheduledInput(run)).toEqual({ id: 9 }),
  },
  {
    name: 'Task: ResultPath null keeps the input',
    definition: single(task({ ResultPath: null })),
    input: { keep: 1 },
    worker: [{ output: { drop: 1 } }],
    expect: ok({ keep: 1 }),
  },
  {
    name: 'Task: a bad ResultSelector path fails with States.ParameterPathFailure',
    definition: single(task({ ResultSelector: { 'x.$': '$.missing' } })),
    worker: [{ output: {} }],
    expect: failed('States.ParameterPathFailure'),
  },
];

const simpleCases: SfnCase[] = [
  {
    name: 'Task: one activity run records exactly the AWS events',
    definition: single(task()),
    input: { a: 1 },
    worker: [{ output: { b: 2 } }],
    expect: ok({ b: 2 }),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited', 'ExecutionSucceeded'],
    check: (run) => {
      const [entered, scheduled, started, succeeded] = run.events.map((e) => e.record);
      expect(entered.details).toEqual({ name: 'S', input: '{"a":1}', inputDetails: { truncated: false } });
      expect(scheduled.details).toEqual({ resource: A, input: '{"a":1}', inputDetails: { truncated: false } });
      expect(scheduled.task).toEqual({ key: 'root#1', resource: A, input: '{"a":1}' });
      expect(started).toEqual({ type: 'ActivityStarted', details: { workerName: 'w1' }, taskKey: 'root#1' });
      expect(succeeded.taskKey).toBe('root#1');
    },
  },
  {
    name: 'Task: a worker failure fails the execution with its error and cause',
    definition: single(task()),
    worker: [{ error: 'Boom', cause: 'it broke' }],
    expect: failed('Boom', 'it broke'),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityFailed', 'ExecutionFailed'],
  },
  {
    name: 'Task: TimeoutSeconds and HeartbeatSeconds are in ActivityScheduled',
    definition: single(task({ TimeoutSeconds: 60, HeartbeatSeconds: 10 })),
    worker: [{ output: 1 }],
    expect: ok(1),
    check: (run) => {
      const s = run.events[1].record;
      expect(s.details).toMatchObject({ timeoutInSeconds: 60, heartbeatInSeconds: 10 });
      expect(s.task).toMatchObject({ timeoutSeconds: 60, heartbeatSeconds: 10 });
    },
  },
  {
    name: 'Pass → Task → Succeed chain',
    definition: { StartAt: 'P', States: { P: { Type: 'Pass', Result: { x: 1 }, Next: 'T' }, T: task({ Next: 'Done' }), Done: { Type: 'Succeed' } } },
    worker: [{ output: { y: 2 } }],
    expect: ok({ y: 2 }),
    events: ['PassStateEntered', 'PassStateExited', 'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited', 'SucceedStateEntered', 'SucceedStateExited', 'ExecutionSucceeded'],
  },
  { name: 'Succeed: InputPath and OutputPath', definition: { StartAt: 'S', States: { S: { Type: 'Succeed', InputPath: '$.a', OutputPath: '$.b' } } }, input: { a: { b: 3 } }, expect: ok(3) },
  {
    name: 'Fail: Error and Cause',
    definition: { StartAt: 'F', States: { F: { Type: 'Fail', Error: 'Custom.Err', Cause: 'because' } } },
    expect: failed('Custom.Err', 'because'),
    events: ['FailStateEntered', 'ExecutionFailed'],
  },
  {
    name: 'Fail: ErrorPath and CausePath',
    definition: { StartAt: 'F', States: { F: { Type: 'Fail', ErrorPath: '$.e', CausePath: '$.c' } } },
    input: { e: 'Dyn.Err', c: 'dynamic cause' },
    expect: failed('Dyn.Err', 'dynamic cause'),
  },
  { name: 'State names with dots, slashes and hashes', definition: { StartAt: 'a.b', States: { 'a.b': { Type: 'Pass', Next: 'c/d#e' }, 'c/d#e': task({ Next: 'f\\g' }), 'f\\g': { Type: 'Succeed' } } }, worker: [{ output: 'ok' }], expect: ok('ok') },
];

const waitCases: SfnCase[] = [
  { name: 'Wait: Seconds', definition: single({ Type: 'Wait', Seconds: 10 }), input: { a: 1 }, expect: ok({ a: 1 }), events: ['WaitStateEntered', 'WaitStateExited', 'ExecutionSucceeded'], check: (run) => expect(at(run, 'WaitStateExited')).toBe(10 * S) },
  { name: 'Wait: Timestamp', definition: single({ Type: 'Wait', Timestamp: '2024-01-01T01:00:00Z' }), expect: ok({}), check: (run) => expect(at(run, 'WaitStateExited')).toBe(3600 * S) },
  { name: 'Wait: SecondsPath', definition: single({ Type: 'Wait', SecondsPath: '$.s' }), input: { s: 90 }, expect: ok({ s: 90 }), check: (run) => expect(at(run, 'WaitStateExited')).toBe(90 * S) },
  { name: 'Wait: TimestampPath', definition: single({ Type: 'Wait', TimestampPath: '$.t' }), input: { t: '2024-01-02T00:00:00Z' }, expect: ok({ t: '2024-01-02T00:00:00Z' }), check: (run) => expect(at(run, 'WaitStateExited')).toBe(86400 * S) },
  { name: 'Wait: a Timestamp in the past goes on at once', definition: single({ Type: 'Wait', Timestamp: '2020-01-01T00:00:00Z' }), expect: ok({}), check: (run) => expect(at(run, 'WaitStateExited')).toBe(0) },
  { name: 'Wait: a bad SecondsPath value fails with States.Runtime', definition: single({ Type: 'Wait', SecondsPath: '$.s' }), input: { s: 'soon' }, expect: failed('States.Runtime') },
  { name: 'Wait then Task', definition: { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 5, Next: 'T' }, T: task({ End: true }) } }, worker: [{ output: 'x' }], expect: ok('x'), check: (run) => expect(run.scheduledAt[0] - SFN_T0).toBe(5 * S) },
];

const retryCases: SfnCase[] = [
  {
    name: 'Retry: MaxAttempts 2 then the error propagates',
    definition: single(task({ Retry: [{ ErrorEquals: ['Boom'], MaxAttempts: 2, IntervalSeconds: 1 }] })),
    worker: [{ error: 'Boom' }, { error: 'Boom' }, { error: 'Boom' }],
    expect: failed('Boom'),
    check: (run) => {
      expect(run.types.filter((t) => t === 'ActivityScheduled')).toHaveLength(3);
      expect(run.events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.record.task!.key)).toEqual(['root#1', 'root#2', 'root#3']);
    },
  },
  {
    name: 'Retry: BackoffRate timings on the simulated clock (2 s, 6 s, 18 s)',
    definition: single(task({ Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 3, MaxAttempts: 3 }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { error: 'E' }, { output: 'finally' }],
    expect: ok('finally'),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 2 * S, 8 * S, 26 * S]),
  },
  {
    name: 'Retry: MaxDelaySeconds caps the backoff',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], IntervalSeconds: 4, BackoffRate: 10, MaxAttempts: 3, MaxDelaySeconds: 5 }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { error: 'E' }, { output: 1 }],
    expect: ok(1),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 4 * S, 9 * S, 14 * S]),
  },
  {
    name: 'Retry: JitterStrategy FULL keeps each delay within [0, nominal]',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], IntervalSeconds: 10, BackoffRate: 2, MaxAttempts: 3, JitterStrategy: 'FULL' }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { error: 'E' }, { output: 1 }],
    expect: ok(1),
    check: (run) => {
      const t = run.scheduledAt.map((x) => x - SFN_T0);
      [10, 20, 40].forEach((nominal, i) => {
        const d = t[i + 1] - t[i];
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(nominal * S);
      });
    },
  },
  {
    name: 'Retry: MaxAttempts 0 never retries',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], MaxAttempts: 0 }] })),
    worker: [{ error: 'E' }],
    expect: failed('E'),
  },
  {
    name: 'Retry: only the first matching retrier counts',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }, { ErrorEquals: ['States.ALL'], MaxAttempts: 5 }] })),
    worker: [{ error: 'E' }, { error: 'E' }],
    expect: failed('E'),
  },
  {
    name: 'Retry: States.TaskFailed does not retry a timeout',
    definition: single(task({ TimeoutSeconds: 5, Retry: [{ ErrorEquals: ['States.TaskFailed'], MaxAttempts: 3 }] })),
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityTimedOut', 'ExecutionFailed'],
  },
  {
    name: 'Retry: States.TaskFailed retries a worker error',
    definition: single(task({ Retry: [{ ErrorEquals: ['States.TaskFailed'], MaxAttempts: 1 }] })),
    worker: [{ error: 'Anything' }, { output: 'second time' }],
    expect: ok('second time'),
  },
  {
    name: 'Retry: States.Timeout retries a timed-out task',
    definition: single(task({ TimeoutSeconds: 5, Retry: [{ ErrorEquals: ['States.Timeout'], MaxAttempts: 1, IntervalSeconds: 1 }] })),
    worker: [{ silent: true }, { output: 'ok' }],
    expect: ok('ok'),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 6 * S]),
  },
  {
    name: 'Retry: $$.State.RetryCount counts the retries',
    definition: single(task({ Parameters: { 'n.$': '$$.State.RetryCount' }, Retry: [{ ErrorEquals: ['E'], MaxAttempts: 2 }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { output: 'ok' }],
    expect: ok('ok'),
    check: (run) => expect([0, 1, 2].map((i) => scheduledInput(run, i))).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]),
  },
  {
    name: 'Retry then Catch to a fallback with ResultPath',
    definition: {
      StartAt: 'T',
      States: {
        T: task({ Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }], Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.err', Next: 'Fallback' }], End: true }),
        Fallback: { Type: 'Pass', End: true },
      },
    },
    input: { a: 1 },
    worker: [{ error: 'E', cause: 'c1' }, { error: 'E', cause: 'c2' }],
    expect: ok({ a: 1, err: { Error: 'E', Cause: 'c2' } }),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityFailed', 'ActivityScheduled', 'ActivityStarted', 'ActivityFailed', 'TaskStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Catch: default ResultPath replaces the input with {Error, Cause}',
    definition: { StartAt: 'T', States: { T: task({ Catch: [{ ErrorEquals: ['E'], Next: 'F' }], End: true }), F: { Type: 'Pass', End: true } } },
    input: { a: 1 },
    worker: [{ error: 'E', cause: 'why' }],
    expect: ok({ Error: 'E', Cause: 'why' }),
  },
  {
    name: 'Catch: the first matching catcher wins; unmatched errors propagate',
    definition: {
      StartAt: 'T',
      States: {
        T: task({ Catch: [{ ErrorEquals: ['Other'], Next: 'A' }, { ErrorEquals: ['E'], Next: 'B' }], End: true }),
        A: { Type: 'Pass', Result: 'a', End: true },
        B: { Type: 'Pass', Result: 'b', End: true },
      },
    },
    worker: [{ error: 'E' }],
    expect: ok('b'),
  },
  {
    name: 'Catch: States.Runtime is not caught by States.ALL',
    definition: { StartAt: 'T', States: { T: task({ InputPath: '$.missing', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'F' }], End: true }), F: { Type: 'Succeed' } } },
    expect: failed('States.Runtime'),
  },
  {
    name: 'Catch: a Parameters failure on a Task is catchable',
    definition: { StartAt: 'T', States: { T: task({ Parameters: { 'x.$': '$.missing' }, Catch: [{ ErrorEquals: ['States.ParameterPathFailure'], Next: 'F' }], End: true }), F: { Type: 'Pass', Result: 'caught', End: true } } },
    expect: ok('caught'),
  },
];

const timeoutCases: SfnCase[] = [
  {
    name: 'Timeout: TimeoutSeconds with no worker',
    definition: single(task({ TimeoutSeconds: 30 })),
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(30 * S),
  },
  {
    name: 'Timeout: TimeoutSeconds counts from scheduling even after the start',
    definition: single(task({ TimeoutSeconds: 30 })),
    worker: [{ output: 'late', after: 40 * S }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(30 * S),
  },
  {
    name: 'Timeout: TimeoutSecondsPath',
    definition: single(task({ TimeoutSecondsPath: '$.t' })),
    input: { t: 7 },
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(7 * S),
  },
  {
    name: 'Timeout: HeartbeatSeconds fires after the start',
    definition: single(task({ HeartbeatSeconds: 10, TimeoutSeconds: 100 })),
    worker: [{ startSilent: true }],
    expect: failed('States.HeartbeatTimeout'),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityTimedOut', 'ExecutionFailed'],
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(10 * S),
  },
  {
    name: 'Timeout: heartbeats keep a task alive past HeartbeatSeconds',
    definition: single(task({ HeartbeatSeconds: 10, HeartbeatSecondsPath: undefined, TimeoutSeconds: 1000 })),
    worker: [{ beats: 5, every: 8 * S, output: 'alive' }],
    expect: ok('alive'),
    check: (run) => expect(at(run, 'ActivitySucceeded')).toBe(40 * S),
  },
  {
    name: 'Timeout: HeartbeatSecondsPath',
    definition: single(task({ HeartbeatSecondsPath: '$.hb' })),
    input: { hb: 3 },
    worker: [{ startSilent: true }],
    expect: failed('States.HeartbeatTimeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(3 * S),
  },
  {
    name: 'Timeout: Catch States.Timeout catches a heartbeat timeout',
    definition: { StartAt: 'T', States: { T: task({ HeartbeatSeconds: 5, Catch: [{ ErrorEquals: ['States.Timeout'], Next: 'F' }], End: true }), F: { Type: 'Pass', End: true } } },
    worker: [{ startSilent: true }],
    expect: ok({ Error: 'States.HeartbeatTimeout', Cause: 'The activity sent no heartbeat for 5 seconds' }),
  },
  {
    name: 'Execution TimeoutSeconds → TIMED_OUT',
    definition: { TimeoutSeconds: 60, ...single(task()) },
    worker: [{ silent: true }],
    expect: { status: 'TIMED_OUT', error: 'States.Timeout' },
    events: ['TaskStateEntered', 'ActivityScheduled', 'ExecutionTimedOut'],
    check: (run) => expect(at(run, 'ExecutionTimedOut')).toBe(60 * S),
  },
  {
    name: 'Execution TimeoutSeconds during a Wait',
    definition: { TimeoutSeconds: 5, ...single({ Type: 'Wait', Seconds: 100 }) },
    expect: { status: 'TIMED_OUT', error: 'States.Timeout' },
    check: (run) => expect(at(run, 'ExecutionTimedOut')).toBe(5 * S),
  },
  {
    name: 'sfn.stop aborts a waiting execution',
    definition: single(task()),
    worker: [{ silent: true }],
    stopAfter: 3 * S,
    expect: { status: 'ABORTED', error: 'Stopped', cause: 'by the test' },
    events: ['TaskStateEntered', 'ActivityScheduled', 'ExecutionAborted'],
  },
  {
    name: 'sfn.stop aborts a Parallel with running branches',
    definition: single({ Type: 'Parallel', Branches: [{ StartAt: 'T1', States: { T1: task({ End: true }) } }, { StartAt: 'W1', States: { W1: { Type: 'Wait', Seconds: 100, End: true } } }] }),
    worker: [{ silent: true }],
    stopAfter: 10 * S,
    expect: { status: 'ABORTED', error: 'Stopped' },
  },
];

let branchNames = 0;
/** A one-state branch graph (state names are unique across a whole definition). */
const branch = (state: Record<string, unknown>) => {
  const name = `B${(branchNames += 1)}`;
  return { StartAt: name, States: { [name]: terminal(state) ? state : { ...state, End: true } } };
};

const parallelCases: SfnCase[] = [
  {
    name: 'Parallel: outputs in branch order',
    definition: single({ Type: 'Parallel', Branches: [branch(task()), branch({ Type: 'Pass', Result: 'p' }), branch({ Type: 'Wait', Seconds: 1 })] }),
    input: { in: 1 },
    worker: [{ output: 't', after: 5 * S }],
    expect: ok(['t', 'p', { in: 1 }]),
    check: (run) => {
      expect(run.types.slice(0, 2)).toEqual(['ParallelStateEntered', 'ParallelStateStarted']);
      expect(run.types.slice(-3)).toEqual(['ParallelStateSucceeded', 'ParallelStateExited', 'ExecutionSucceeded']);
      expect(new Set(run.events.map((e) => e.actorId))).toEqual(new Set(['root', 'root/S.1.0', 'root/S.1.1', 'root/S.1.2']));
    },
  },
  {
    name: 'Parallel: exact events with two Pass branches',
    definition: single({ Type: 'Parallel', Branches: [branch({ Type: 'Pass', Result: 1 }), branch({ Type: 'Pass', Result: 2 })] }),
    expect: ok([1, 2]),
    events: ['ParallelStateEntered', 'ParallelStateStarted', 'PassStateEntered', 'PassStateExited', 'PassStateEntered', 'PassStateExited', 'ParallelStateSucceeded', 'ParallelStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Parallel: a failing branch fails the state with its error and stops the others',
    definition: single({ Type: 'Parallel', Branches: [branch(task()), branch({ Type: 'Fail', Error: 'BranchErr', Cause: 'b' })] }),
    worker: [{ silent: true }],
    expect: failed('BranchErr', 'b'),
    check: (run) => expect(run.types).toContain('ParallelStateFailed'),
  },
  {
    name: 'Parallel: nested Parallel',
    definition: single({ Type: 'Parallel', Branches: [branch({ Type: 'Parallel', Branches: [branch(task()), branch({ Type: 'Pass', Result: 'deep' })] }), branch({ Type: 'Pass', Result: 'top' })] }),
    worker: [{ output: 'nested task' }],
    expect: ok([['nested task', 'deep'], 'top']),
    check: (run) => expect(run.events.find((e) => e.record.type === 'ActivityScheduled')!.record.task!.key).toMatch(/^root\/S\.1\.0\/B\d+\.1\.0#1$/),
  },
  {
    name: 'Parallel: Parameters, ResultSelector, ResultPath',
    definition: single({ Type: 'Parallel', Parameters: { 'v.$': '$.x' }, Branches: [branch({ Type: 'Pass' }), branch({ Type: 'Pass', InputPath: '$.v' })], ResultSelector: { 'first.$': '$[0].v', 'second.$': '$[1]' }, ResultPath: '$.r' }),
    input: { x: 4 },
    expect: ok({ x: 4, r: { first: 4, second: 4 } }),
  },
  {
    name: 'Parallel: Catch on a failed branch',
    definition: { StartAt: 'P', States: { P: { Type: 'Parallel', Branches: [branch({ Type: 'Fail', Error: 'X' })], Catch: [{ ErrorEquals: ['X'], ResultPath: '$.e', Next: 'F' }], End: true }, F: { Type: 'Pass', End: true } } },
    input: { k: 1 },
    expect: ok({ k: 1, e: { Error: 'X', Cause: '' } }),
  },
  {
    name: 'Parallel: Retry runs the branches again with new child ids',
    definition: single({ Type: 'Parallel', Branches: [branch(task())], Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }] }),
    worker: [{ error: 'E' }, { output: 'again' }],
    expect: ok(['again']),
    check: (run) => expect(run.events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.record.task!.key)).toEqual(['root/S.1.0#1', 'root/S.2.0#1']),
  },
];

const mapCases: SfnCase[] = [
  {
    name: 'Map: ItemsPath, results in item order',
    definition: single({ Type: 'Map', ItemsPath: '$.items', ItemProcessor: { StartAt: 'Double', States: { Double: { Type: 'Pass', Parameters: { 'v.$': 'States.MathAdd($.n, $.n)' }, End: true } } } }),
    input: { items: [{ n: 1 }, { n: 2 }, { n: 3 }] },
    expect: ok([{ v: 2 }, { v: 4 }, { v: 6 }]),
    check: (run) => {
      expect(run.types.slice(0, 2)).toEqual(['MapStateEntered', 'MapStateStarted']);
      expect(run.events[1].record.details).toEqual({ length: 3 });
      expect(run.types.filter((t) => t === 'MapIterationSucceeded')).toHaveLength(3);
    },
  },
  {
    name: 'Map: ItemSelector with $$.Map.Item.Index and Value',
    definition: single({ Type: 'Map', ItemSelector: { 'i.$': '$$.Map.Item.Index', 'v.$': '$$.Map.Item.Value', 'c.$': '$.common' }, ItemsPath: '$.xs', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: { xs: ['a', 'b'], common: 7 },
    expect: ok([{ i: 0, v: 'a', c: 7 }, { i: 1, v: 'b', c: 7 }]),
  },
  {
    name: 'Map: MaxConcurrency 1 runs the items one after another',
    definition: single({ Type: 'Map', MaxConcurrency: 1, ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }),
    input: [1, 2, 3],
    worker: [{ output: 'a', after: 2 * S }, { output: 'b', after: 2 * S }, { output: 'c', after: 2 * S }],
    expect: ok(['a', 'b', 'c']),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 2 * S, 4 * S]),
  },
  {
    name: 'Map: MaxConcurrency 0 starts every item at once',
    definition: single({ Type: 'Map', MaxConcurrency: 0, ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }),
    input: [1, 2, 3],
    worker: [{ output: 'a', after: 2 * S }, { output: 'b', after: 2 * S }, { output: 'c', after: 2 * S }],
    expect: ok(['a', 'b', 'c']),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 0, 0]),
  },
  {
    name: 'Map: MaxConcurrencyPath 2',
    definition: single({ Type: 'Map', ItemsPath: '$.xs', MaxConcurrencyPath: '$.c', ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }),
    input: { xs: [1, 2, 3], c: 2 },
    worker: [{ output: 1, after: S }, { output: 2, after: S }, { output: 3, after: S }],
    expect: ok([1, 2, 3]),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 0, S]),
  },
  {
    name: 'Map: a failing iteration fails the Map',
    definition: single({ Type: 'Map', ItemProcessor: { StartAt: 'C', States: { C: { Type: 'Choice', Choices: [{ Variable: '$', NumericEquals: 2, Next: 'Bad' }], Default: 'Good' }, Bad: { Type: 'Fail', Error: 'Two', Cause: 'item 2' }, Good: { Type: 'Succeed' } } } }),
    input: [1, 2, 3],
    expect: failed('Two', 'item 2'),
    check: (run) => {
      expect(run.types).toContain('MapIterationFailed');
      expect(run.types).toContain('MapStateFailed');
    },
  },
  {
    name: 'Map: empty items',
    definition: single({ Type: 'Map', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: [],
    expect: ok([]),
    events: ['MapStateEntered', 'MapStateStarted', 'MapStateSucceeded', 'MapStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Map: items that are not an array fail with States.Runtime',
    definition: single({ Type: 'Map', ItemsPath: '$.xs', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: { xs: 'nope' },
    expect: failed('States.Runtime'),
  },
  {
    name: 'Map inside Parallel',
    definition: single({ Type: 'Parallel', Branches: [branch({ Type: 'Map', ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }), branch({ Type: 'Pass', Result: 'side' })] }),
    input: ['x', 'y'],
    worker: [{ output: 'X' }, { output: 'Y' }],
    expect: ok([['X', 'Y'], 'side']),
    check: (run) => expect(run.events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.record.task!.key.replace(/B\d+/, 'M'))).toEqual(['root/S.1.0/M.1.0#1', 'root/S.1.0/M.1.1#1']),
  },
  {
    name: 'Map: Catch and ResultPath on an iteration failure',
    definition: { StartAt: 'M', States: { M: { Type: 'Map', ResultPath: '$.r', ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } }, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'F' }], End: true }, F: { Type: 'Pass', End: true } } },
    input: [1],
    worker: [{ error: 'ItemErr', cause: 'c' }],
    expect: ok({ Error: 'ItemErr', Cause: 'c' }),
  },
  {
    name: 'Map: Retry restarts every iteration',
    definition: single({ Type: 'Map', MaxConcurrency: 1, ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } }, Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }] }),
    input: [1, 2],
    worker: [{ output: 'a' }, { error: 'E' }, { output: 'a2' }, { output: 'b2' }],
    expect: ok(['a2', 'b2']),
  },
  {
    name: 'Map: legacy Iterator and Parameters',
    definition: single({ Type: 'Map', Parameters: { 'x.$': '$$.Map.Item.Value' }, Iterator: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: [5],
    expect: ok([{ x: 5 }]),
  },
];

export const SFN_CASES: SfnCase[] = [
  ...simpleCases, ...dataFlowCases, ...choiceCases, ...intrinsicCases, ...waitCases, ...retryCases, ...timeoutCases, ...parallelCases, ...mapCases,
];
