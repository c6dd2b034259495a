import { expect } from 'vitest';
import { stateCause } from '../../src/sfn/compile/state-cause.js';
import type { SfnCase, SfnRun } from '../helpers/sfn-driver.js';
import { A, failed, ok, scheduledInput, task } from './sfn-case-builders.js';

/** JSONata states: every state type, each `$states` field, expressions and their errors. */

const J = 'JSONata';
/** An expected output the case's check looks at itself. */
export const ANY_OUTPUT = '<checked by the case>';
/** A one-state JSONata machine. */
const one = (state: Record<string, unknown>) => ({
  QueryLanguage: J, StartAt: 'S',
  States: { S: ['Fail', 'Succeed', 'Choice'].includes(state.Type as string) ? state : { ...state, End: true } },
});
/**
 * A QueryEvaluationError of the first state (`state`, entered at event 2), worded as AWS words it:
 * the step writes the state's name and entered event in.
 */
export const qe = (text: string, state = 'S') => failed('States.QueryEvaluationError', stateCause(state, 2, text));
const undef = (expr: string, field: string) => qe(`The JSONata expression '${expr}' specified for the field '${field}' returned nothing (undefined).`);
/** The details of the nth event of a type. */
export const details = (run: SfnRun, type: string, nth = 0) => run.events.filter((e) => e.record.type === type)[nth]!.record.details!;

/** A one-state machine whose state fails with QueryEvaluationError and `text`. */
const bad = (name: string, state: Record<string, unknown>, text: string): SfnCase => ({ name, definition: one(state), expect: qe(text) });

const out = (name: string, output: unknown, expr: unknown, input: unknown = { a: 1, b: [1, 2, 3], s: 'x' }): SfnCase => ({
  name: `JSONata Pass Output: ${name}`, definition: one({ Type: 'Pass', Output: expr }), input, expect: ok(output),
});

const expressions: SfnCase[] = [
  out('a literal', { k: 1, l: [true, null] }, { k: 1, l: [true, null] }),
  out('$states.input', { a: 1, b: [1, 2, 3], s: 'x' }, '{% $states.input %}'),
  out('a path into the input', [1, 2, 3], '{% $states.input.b %}'),
  out('arithmetic', 7, '{% $sum($states.input.b) + $states.input.a %}'),
  out('expressions nested in objects and arrays', { x: 'x!', y: [2, { z: 3 }] }, { x: "{% $states.input.s & '!' %}", y: ['{% 1 + 1 %}', { z: '{% $count($states.input.b) %}' }] }),
  out('a string that is not an expression stays', { u: '$states.input', v: '$.a', w: 'a % b' }, { u: '$states.input', v: '$.a', w: 'a % b' }),
  out('an object constructor drops undefined members', { a: 1 }, '{% { "a": $states.input.a, "m": $states.input.missing } %}'),
  out('a single-item sequence is its item', 2, '{% $states.input.b[1] %}'),
  out('$map and a lambda', [2, 4, 6], '{% $map($states.input.b, function($v) { $v * 2 }) %}'),
  out('$filter with a predicate', [2, 3], '{% $states.input.b[$ > 1] %}'),
  out('string functions', 'A-B', "{% $join($map(['a','b'], $uppercase), '-') %}"),
  out('$string and $number', ['12', 12], "{% [$string(12), $number('12')] %}"),
  out('$partition', [[1, 2], [3]], '{% $partition($states.input.b, 2) %}'),
  out('$range', [0, 2, 4], '{% $range(0, 5, 2) %}'),
  out('$range downwards', [3, 2, 1], '{% $range(3, 1, -1) %}'),
  out('$hash SHA-256', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', "{% $hash('abc', 'SHA-256') %}"),
  out('$hash MD5', '900150983cd24fb0d6963f7d28e17f72', "{% $hash('abc', 'MD5') %}"),
  out('$random with a seed is java.util.Random', 0.7308781907032909, '{% $random(1) %}'),
  out('$parse', { k: [1] }, `{% $parse('{"k":[1]}') %}`),
  out('$now is the step clock', '2024-01-01T00:00:00.000Z', '{% $now() %}'),
  out('$millis is the step clock', Date.UTC(2024, 0, 1), '{% $millis() %}'),
  out('$now with a picture', '2024', "{% $now('[Y0001]') %}"),
  out('$uuid gives a v4 UUID', true, "{% $contains($uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) %}"),
  out('$random without a seed is in [0, 1)', true, '{% $random() >= 0 and $random() < 1 %}'),
  out('a conditional', 'big', "{% $states.input.a > 0 ? 'big' : 'small' %}"),
  out('an array input stays an array', [1, 2], '{% $states.input %}', [1, 2]),
  out('a block with a local variable', 10, '{% ($x := 5; $x * 2) %}'),
  {
    name: 'JSONata Pass without Output passes its input',
    definition: one({ Type: 'Pass' }), input: { k: 'v' }, expect: ok({ k: 'v' }),
  },
  {
    name: 'JSONata: an expression that gives nothing fails with QueryEvaluationError',
    definition: one({ Type: 'Pass', Output: '{% $states.input.missing %}' }),
    expect: undef('$states.input.missing', 'Output'),
    events: ['PassStateEntered', 'EvaluationFailed', 'ExecutionFailed'],
    check: (run) => expect(details(run, 'EvaluationFailed')).toEqual({
      error: 'States.QueryEvaluationError', location: 'Output', state: 'S',
      cause: stateCause('S', 2, "The JSONata expression '$states.input.missing' specified for the field 'Output' returned nothing (undefined)."),
    }),
  },
  {
    name: 'JSONata: the location of a nested expression names its path',
    definition: one({ Type: 'Pass', Output: { outer: { inner: '{% $states.input.nope %}' } } }),
    expect: undef('$states.input.nope', 'Output/outer/inner'),
  },
  bad('JSONata: a type error fails with QueryEvaluationError and the JSONata error', { Type: 'Pass', Output: "{% 1 + 'a' %}" }, `The JSONata expression '1 + 'a'' specified for the field 'Output' threw an error during evaluation. T2002: The right side of the "+" operator must evaluate to a number`),
  bad('JSONata: $eval is not available', { Type: 'Pass', Output: "{% $eval('1') %}" }, "The JSONata expression '$eval('1')' specified for the field 'Output' threw an error during evaluation. The $eval function is not supported: use $parse"),
  bad('JSONata: $range past 1,000 items fails', { Type: 'Pass', Output: '{% $range(1, 2000, 1) %}' }, "The JSONata expression '$range(1, 2000, 1)' specified for the field 'Output' threw an error during evaluation. $range produces more than 1000 items"),
  {
    name: 'JSONata: an output over 256 KiB fails with States.DataLimitExceeded',
    definition: one({ Type: 'Pass', Output: "{% $join($map($range(1, 1000, 1), function() { $pad('', 300, 'x') })) %}" }),
    expect: failed('States.DataLimitExceeded', "The state/task 'S' returned a result with a size exceeding the maximum number of bytes service limit."),
  },
];

const states: SfnCase[] = [
  {
    name: 'JSONata Task: Arguments are the task input, Output reads $states.result',
    definition: one({ Type: 'Task', Resource: A, Arguments: { n: '{% $states.input.n %}', k: 'lit' }, Output: { got: '{% $states.result.v %}', was: '{% $states.input.n %}' } }),
    input: { n: 5 }, worker: [{ output: { v: 'done' } }],
    expect: ok({ got: 'done', was: 5 }),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited', 'ExecutionSucceeded'],
    check: (run) => expect(scheduledInput(run)).toEqual({ n: 5, k: 'lit' }),
  },
  {
    name: 'JSONata Task: Arguments may be one expression',
    definition: one({ Type: 'Task', Resource: A, Arguments: '{% $states.input.list %}' }),
    input: { list: [1, 2] }, worker: [{ output: 'r' }], expect: ok('r'),
    check: (run) => expect(scheduledInput(run)).toEqual([1, 2]),
  },
  {
    name: 'JSONata Task: without Output the output is the result',
    definition: one(task()), input: { n: 1 }, worker: [{ output: { r: 2 } }], expect: ok({ r: 2 }),
    check: (run) => expect(scheduledInput(run)).toEqual({ n: 1 }),
  },
  {
    name: 'JSONata Task: TimeoutSeconds as an expression',
    definition: one(task({ TimeoutSeconds: '{% $states.input.t %}' })), input: { t: 7 }, worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(details(run, 'ActivityScheduled').timeoutInSeconds).toBe(7),
  },
  {
    name: 'JSONata Task: HeartbeatSeconds as an expression',
    definition: one(task({ TimeoutSeconds: 100, HeartbeatSeconds: '{% 3 %}' })), worker: [{ startSilent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(details(run, 'ActivityScheduled').heartbeatInSeconds).toBe(3),
  },
  {
    name: 'JSONata Task: a TimeoutSeconds that is not a positive integer fails the state',
    definition: one(task({ TimeoutSeconds: "{% 'ten' %}" })),
    expect: qe("The JSONata expression ''ten'' specified for the field 'TimeoutSeconds' returned an unexpected result type. Expected 'positive integer', but was '\"ten\"'."),
  },
  {
    name: 'JSONata Task: a failing Arguments expression is caught (States.ALL) with $states.errorOutput',
    definition: {
      QueryLanguage: J, StartAt: 'T',
      States: {
        T: { Type: 'Task', Resource: A, Arguments: '{% $states.input.none %}', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'C', Output: '{% $states.errorOutput.Error %}' }], End: true },
        C: { Type: 'Pass', End: true },
      },
    },
    expect: ok('States.QueryEvaluationError'),
    events: ['TaskStateEntered', 'EvaluationFailed', 'TaskStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'JSONata Catch: without Output the output is $states.errorOutput',
    definition: {
      QueryLanguage: J, StartAt: 'T',
      States: { T: { Type: 'Task', Resource: A, Catch: [{ ErrorEquals: ['Boom'], Next: 'C' }], End: true }, C: { Type: 'Succeed' } },
    },
    worker: [{ error: 'Boom', cause: 'why' }], expect: ok({ Error: 'Boom', Cause: 'why' }),
  },
  {
    name: 'JSONata Catch Output reads $states.input too',
    definition: {
      QueryLanguage: J, StartAt: 'T',
      States: { T: { Type: 'Task', Resource: A, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'C', Output: { in: '{% $states.input %}', e: '{% $states.errorOutput %}' } }], End: true }, C: { Type: 'Succeed' } },
    },
    input: { id: 1 }, worker: [{ error: 'E' }], expect: ok({ in: { id: 1 }, e: { Error: 'E', Cause: '' } }),
  },
  {
    name: 'JSONata Task: Retry then success',
    definition: one(task({ Retry: [{ ErrorEquals: ['E'], IntervalSeconds: 1, MaxAttempts: 1 }], Output: '{% $states.result %}' })),
    worker: [{ error: 'E' }, { output: 'second' }], expect: ok('second'),
  },
  {
    name: 'JSONata Choice: the first true Condition wins',
    definition: {
      QueryLanguage: J, StartAt: 'C',
      States: {
        C: { Type: 'Choice', Choices: [{ Condition: '{% $states.input.n > 10 %}', Next: 'Big' }, { Condition: '{% $states.input.n > 1 %}', Next: 'Mid' }], Default: 'Small' },
        Big: { Type: 'Pass', Output: 'big', End: true }, Mid: { Type: 'Pass', Output: 'mid', End: true }, Small: { Type: 'Pass', Output: 'small', End: true },
      },
    },
    input: { n: 5 }, expect: ok('mid'),
    events: ['ChoiceStateEntered', 'ChoiceStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'JSONata Choice: Default, and the rule Output is the state output',
    definition: {
      QueryLanguage: J, StartAt: 'C',
      States: {
        C: { Type: 'Choice', Choices: [{ Condition: '{% $states.input.n = 1 %}', Next: 'D', Output: 'rule' }], Default: 'D', Output: '{% "default:" & $states.input.n %}' },
        D: { Type: 'Succeed' },
      },
    },
    input: { n: 2 }, expect: ok('default:2'),
  },
  {
    name: 'JSONata Choice: the taken rule gives Output',
    definition: {
      QueryLanguage: J, StartAt: 'C',
      States: { C: { Type: 'Choice', Choices: [{ Condition: '{% true %}', Next: 'D', Output: { r: '{% $states.input.n %}' } }] }, D: { Type: 'Succeed' } },
    },
    input: { n: 3 }, expect: ok({ r: 3 }),
  },
  {
    name: 'JSONata Choice: a Condition that is not a boolean fails',
    definition: { QueryLanguage: J, StartAt: 'C', States: { C: { Type: 'Choice', Choices: [{ Condition: '{% 1 %}', Next: 'D' }] }, D: { Type: 'Succeed' } } },
    expect: qe("The JSONata expression '1' specified for the field 'Choices[0].Condition' returned an unexpected result type. Expected 'boolean', but was '1'.", 'C'),
  },
  {
    name: 'JSONata Choice: no match and no Default',
    definition: { QueryLanguage: J, StartAt: 'C', States: { C: { Type: 'Choice', Choices: [{ Condition: '{% false %}', Next: 'D' }] }, D: { Type: 'Succeed' } } },
    expect: failed('States.NoChoiceMatched', "No Matches! (state 'C')"),
  },
  {
    name: 'JSONata Wait: Seconds as an expression',
    definition: one({ Type: 'Wait', Seconds: '{% $states.input.s * 2 %}', Output: '{% $millis() %}' }), input: { s: 5 },
    expect: ok(Date.UTC(2024, 0, 1) + 10_000),
  },
  {
    name: 'JSONata Wait: Timestamp as an expression',
    definition: one({ Type: 'Wait', Timestamp: '{% $states.input.at %}' }), input: { at: '2024-01-01T00:01:00Z' },
    expect: ok({ at: '2024-01-01T00:01:00Z' }),
    check: (run) => expect(run.events.at(-1)!.at - Date.UTC(2024, 0, 1)).toBe(60_000),
  },
  bad('JSONata Wait: a negative Seconds fails', { Type: 'Wait', Seconds: '{% -1 %}' }, "The JSONata expression '-1' specified for the field 'Seconds' returned an unexpected result type. Expected 'non-negative integer', but was '-1'."),
  bad('JSONata Wait: a Timestamp expression that gives a number fails', { Type: 'Wait', Timestamp: '{% 5 %}' }, "The JSONata expression '5' specified for the field 'Timestamp' returned an unexpected result type. Expected 'string', but was '5'."),
  {
    name: 'JSONata Succeed: Output',
    definition: one({ Type: 'Succeed', Output: { done: '{% $states.input.x %}' } }), input: { x: 1 }, expect: ok({ done: 1 }),
  },
  {
    name: 'JSONata Fail: Error and Cause as expressions',
    definition: one({ Type: 'Fail', Error: "{% 'E.' & $states.input.code %}", Cause: '{% $string($states.input) %}' }), input: { code: 'X' },
    expect: failed('E.X', '{"code":"X"}'), events: ['FailStateEntered', 'ExecutionFailed'],
  },
  {
    name: 'JSONata Fail: literal Error and Cause',
    definition: one({ Type: 'Fail', Error: 'Plain', Cause: 'text' }), expect: failed('Plain', 'text'),
  },
  {
    name: 'JSONata: $states.context holds the execution, state machine and state',
    definition: one({ Type: 'Pass', Output: { e: '{% $states.context.Execution.Name %}', m: '{% $states.context.StateMachine.Name %}', s: '{% $states.context.State.Name %}', i: '{% $states.context.Execution.Input %}' } }),
    input: { q: 1 }, expect: ok({ e: 'exec-1', m: 'sm', s: 'S', i: { q: 1 } }),
  },
  {
    name: 'JSONata Parallel: Arguments go to every branch, Output reads $states.result',
    definition: one({
      Type: 'Parallel', Arguments: { v: '{% $states.input.v %}' }, Output: '{% $sum($states.result) %}',
      Branches: [
        { StartAt: 'A', States: { A: { Type: 'Pass', Output: '{% $states.input.v + 1 %}', End: true } } },
        { StartAt: 'B', States: { B: { Type: 'Pass', Output: '{% $states.input.v * 10 %}', End: true } } },
      ],
    }),
    input: { v: 2 }, expect: ok(23),
  },
  {
    name: 'JSONata Map: Items, ItemSelector with $states.context.Map.Item, Output',
    definition: one({
      Type: 'Map', Items: '{% $states.input.xs %}',
      ItemSelector: { i: '{% $states.context.Map.Item.Index %}', v: '{% $states.context.Map.Item.Value %}', k: '{% $states.input.k %}' },
      ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', Output: '{% $states.input.v * $states.input.i + $states.input.k %}', End: true } } },
      Output: '{% $states.result %}',
    }),
    input: { xs: [5, 6, 7], k: 100 }, expect: ok([100, 106, 114]),
  },
  {
    name: 'JSONata Map: Items as a literal array',
    definition: one({ Type: 'Map', Items: [1, 2], ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    expect: ok([1, 2]),
  },
  {
    name: 'JSONata Map: without Items the input must be an array',
    definition: one({ Type: 'Map', MaxConcurrency: '{% 1 %}', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: ['a', 'b'], expect: ok(['a', 'b']),
  },
  {
    name: 'JSONata Map: Items that are not an array fail',
    definition: one({ Type: 'Map', Items: '{% $states.input.n %}', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: { n: 3 },
    expect: qe("The JSONata expression '$states.input.n' specified for the field 'Items' returned an unexpected result type. Expected 'array', but was '3'."),
  },
  {
    name: 'JSONata Map: Items with $random are evaluated once across turns (25 items)',
    definition: one({
      Type: 'Map', Items: '{% $map($range(1, 25, 1), function($i) { $random() }) %}',
      ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
    }),
    expect: ok(ANY_OUTPUT),
    check: (run) => {
      const items = JSON.parse(details(run, 'MapStateExited').output as string) as number[];
      expect(items).toHaveLength(25);
      const started = run.events.filter((e) => e.record.type === 'PassStateEntered').map((e) => JSON.parse(e.record.details!.input as string) as number);
      expect(started).toEqual(items);
    },
  },
];

/** Query languages mixed in one machine. */
const mixing: SfnCase[] = [
  {
    name: 'Mixing: a JSONata state in a JSONPath machine',
    definition: {
      StartAt: 'P1',
      States: {
        P1: { Type: 'Pass', Parameters: { 'x.$': '$.a' }, Next: 'J' },
        J: { Type: 'Pass', QueryLanguage: J, Output: { y: '{% $states.input.x + 1 %}' }, Next: 'P2' },
        P2: { Type: 'Pass', OutputPath: '$.y', End: true },
      },
    },
    input: { a: 1 }, expect: ok(2),
  },
  {
    name: 'Mixing: a JSONPath state in a machine without a top-level language reads "{% %}" as text',
    definition: { StartAt: 'P', States: { P: { Type: 'Pass', Result: '{% 1 %}', End: true } } },
    expect: ok('{% 1 %}'),
  },
  {
    name: 'Mixing: nested states inherit the top-level language, not their Map\'s',
    definition: {
      StartAt: 'M',
      States: {
        M: {
          Type: 'Map', QueryLanguage: J, Items: '{% $states.input.xs %}',
          ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', Parameters: { 'x.$': '$' }, End: true } } }, End: true,
        },
      },
    },
    input: { xs: [1, 2] }, expect: ok([{ x: 1 }, { x: 2 }]),
  },
];

export const JSONATA_CASES: SfnCase[] = [...expressions, ...states, ...mixing];
