import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { SfnCase } from '../helpers/sfn-driver.js';
import { A, failed, ok, scheduledInput, single, task } from './sfn-case-builders.js';

/** Cases for Pass, Succeed, Fail, Task basics, data flow, Choice and intrinsics. */

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
      'entered.$': '$$.State.EnteredTime', 'redrives.$': '$$.Execution.RedriveCount',
    } }),
    input: { q: 1 },
    expect: ok({
      id: 'arn:aws:states:us-east-1:123456789012:execution:sm:exec-1', name: 'exec-1', role: 'arn:aws:iam::123456789012:role/r',
      start: '2024-01-01T00:00:00.000Z', input: { q: 1 }, sm: 'sm', smId: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm',
      state: 'S', entered: '2024-01-01T00:00:00.000Z', redrives: 0,
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
      expect(scheduled.task).toEqual({ key: 'root#1', resource: A, state: 'S', input: '{"a":1}' });
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

export const DATA_CASES: SfnCase[] = [...simpleCases, ...dataFlowCases, ...choiceCases, ...intrinsicCases];
