import { expect } from 'vitest';
import type { SfnCase, SfnRun } from '../helpers/sfn-driver.js';
import { A, failed, ok, scheduledInput } from './sfn-case-builders.js';
import { details, qe } from './sfn-jsonata-cases.js';

/** Workflow variables: Assign in both languages, AWS's evaluation order, scope in Parallel and Map, limits. */

const J = 'JSONata';
const end = { Type: 'Succeed' };
/** The assignedVariables of the nth exited event of a type. */
const assigned = (run: SfnRun, type: string, nth = 0) => details(run, type, nth).assignedVariables;
const pass = (extra: Record<string, unknown>) => ({ Type: 'Pass', ...extra });

/** A Choice whose rule and Default assign different values; which one `n` takes. */
const choiceAssign = (name: string, n: number, sign: string): SfnCase => ({
  name,
  definition: {
    QueryLanguage: J, StartAt: 'C',
    States: {
      C: { Type: 'Choice', Choices: [{ Condition: '{% $states.input.n > 0 %}', Next: 'P', Assign: { sign: 'positive' } }], Default: 'P', Assign: { sign: 'other' } },
      P: pass({ Output: '{% $sign %}', End: true }),
    },
  },
  input: { n }, expect: ok(sign),
});

const jsonata: SfnCase[] = [
  {
    name: 'Assign (JSONata): a later state reads the variable',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { x: '{% $states.input.n %}' }, Next: 'B' }), B: pass({ Output: '{% $x * 2 %}', End: true }) } },
    input: { n: 21 }, expect: ok(42),
    check: (run) => expect(details(run, 'PassStateExited')).toEqual({
      name: 'A', output: '{"n":21}', outputDetails: { truncated: false }, assignedVariables: { x: '21' }, assignedVariablesDetails: { truncated: false },
    }),
  },
  {
    name: 'Assign (JSONata): values are JSON text in the exited event',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { s: 'text', n: 1.5, b: true, z: null, o: { k: [1] } }, End: true }) } },
    expect: ok({}),
    check: (run) => expect(assigned(run, 'PassStateExited')).toEqual({ s: '"text"', n: '1.5', b: 'true', z: 'null', o: '{"k":[1]}' }),
  },
  {
    name: 'Assign (JSONata): every assignment sees the values from before the state',
    definition: {
      QueryLanguage: J, StartAt: 'A',
      States: { A: pass({ Assign: { x: 1, y: 10 }, Next: 'B' }), B: pass({ Assign: { x: '{% $y %}', y: '{% $x %}' }, Next: 'C' }), C: pass({ Output: '{% [$x, $y] %}', End: true }) },
    },
    expect: ok([10, 1]),
  },
  {
    name: 'Assign (JSONata): Output sees the variables from before the state',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { x: 1 }, Next: 'B' }), B: pass({ Assign: { x: 2 }, Output: '{% $x %}', Next: 'C' }), C: pass({ Output: '{% $x %}', End: true }) } },
    expect: ok(2),
    check: (run) => expect(details(run, 'PassStateExited', 1).output).toBe('1'),
  },
  {
    name: 'Assign (JSONata): Task Assign reads $states.result',
    definition: { QueryLanguage: J, StartAt: 'T', States: { T: { Type: 'Task', Resource: A, Assign: { r: '{% $states.result.v %}', i: '{% $states.input.id %}' }, Output: '{% $states.input %}', Next: 'P' }, P: pass({ Output: '{% [$r, $i] %}', End: true }) } },
    input: { id: 7 }, worker: [{ output: { v: 'ok' } }], expect: ok(['ok', 7]),
  },
  {
    name: 'Assign (JSONata): a variable in Arguments',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { who: 'María' }, Next: 'T' }), T: { Type: 'Task', Resource: A, Arguments: { name: '{% $who %}' }, End: true } } },
    worker: [{ output: 'r' }], expect: ok('r'),
    check: (run) => expect(scheduledInput(run)).toEqual({ name: 'María' }),
  },
  {
    name: 'Assign (JSONata): a caught error runs the catcher\'s Assign, not the state\'s',
    definition: {
      QueryLanguage: J, StartAt: 'T',
      States: {
        T: { Type: 'Task', Resource: A, Assign: { s: 'state' }, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'P', Assign: { c: '{% $states.errorOutput.Error %}' } }], End: true },
        P: pass({ Output: '{% { "c": $c, "s": $exists($s) } %}', End: true }),
      },
    },
    worker: [{ error: 'Oops' }], expect: ok({ c: 'Oops', s: false }),
    check: (run) => expect(assigned(run, 'TaskStateExited')).toEqual({ c: '"Oops"' }),
  },
  choiceAssign('Assign (JSONata): the taken Choice rule assigns', 1, 'positive'),
  choiceAssign('Assign (JSONata): the Choice Default takes the state\'s Assign', -1, 'other'),
  {
    name: 'Assign (JSONata): Wait assigns when it exits',
    definition: { QueryLanguage: J, StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 2, Assign: { t: '{% $millis() %}' }, Next: 'P' }, P: pass({ Output: '{% $t %}', End: true }) } },
    expect: ok(Date.UTC(2024, 0, 1) + 2000),
  },
  {
    name: 'Assign (JSONata): a later assignment overwrites',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { x: 1 }, Next: 'B' }), B: pass({ Assign: { x: '{% $x + 1 %}' }, Next: 'C' }), C: pass({ Output: '{% $x %}', End: true }) } },
    expect: ok(2),
  },
  {
    name: 'Assign (JSONata): a failing assignment fails the state with its location',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { x: '{% $states.input.none %}' }, End: true }) } },
    expect: qe("The JSONata expression '$states.input.none' specified for the field 'Assign/x' returned nothing (undefined).", 'A'),
    check: (run) => expect(details(run, 'EvaluationFailed').location).toBe('Assign/x'),
  },
  {
    name: 'Assign: a state that assigns nothing carries no assignedVariables',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ End: true }) } },
    expect: ok({}),
    check: (run) => expect(details(run, 'PassStateExited')).not.toHaveProperty('assignedVariables'),
  },
];

const scope: SfnCase[] = [
  {
    name: 'Scope: a Parallel branch reads the outer variables',
    definition: {
      QueryLanguage: J, StartAt: 'A',
      States: {
        A: pass({ Assign: { k: 3 }, Next: 'P' }),
        P: { Type: 'Parallel', End: true, Branches: [{ StartAt: 'B', States: { B: pass({ Output: '{% $k * 2 %}', End: true }) } }, { StartAt: 'C', States: { C: pass({ Output: '{% $k + 1 %}', End: true }) } }] },
      },
    },
    expect: ok([6, 4]),
  },
  {
    name: 'Scope: a branch\'s own assignments stay inside it',
    definition: {
      QueryLanguage: J, StartAt: 'A',
      States: {
        A: pass({ Assign: { k: 'outer' }, Next: 'P' }),
        P: {
          Type: 'Parallel', Next: 'After',
          Branches: [{ StartAt: 'B1', States: { B1: pass({ Assign: { inner: 'b' }, Next: 'B2' }), B2: pass({ Output: '{% $inner & "/" & $k %}', End: true }) } }],
        },
        After: pass({ Output: '{% { "k": $k, "inner": $exists($inner), "r": $states.input } %}', End: true }),
      },
    },
    expect: ok({ k: 'outer', inner: false, r: ['b/outer'] }),
  },
  {
    name: 'Scope: the Parallel state assigns from its result after its branches',
    definition: {
      QueryLanguage: J, StartAt: 'P',
      States: {
        P: { Type: 'Parallel', Assign: { total: '{% $sum($states.result) %}' }, Next: 'Q', Branches: [{ StartAt: 'B', States: { B: pass({ Output: 4, End: true }) } }, { StartAt: 'C', States: { C: pass({ Output: 5, End: true }) } }] },
        Q: pass({ Output: '{% $total %}', End: true }),
      },
    },
    expect: ok(9),
  },
  {
    name: 'Scope: Map iterations read the outer variables and keep their own',
    definition: {
      QueryLanguage: J, StartAt: 'A',
      States: {
        A: pass({ Assign: { factor: 10 }, Next: 'M' }),
        M: {
          Type: 'Map', Items: [1, 2, 3], Next: 'After',
          ItemProcessor: { StartAt: 'I1', States: { I1: pass({ Assign: { mine: '{% $states.input * $factor %}' }, Next: 'I2' }), I2: pass({ Output: '{% $mine %}', End: true }) } },
        },
        After: pass({ Output: '{% { "r": $states.input, "mine": $exists($mine) } %}', End: true }),
      },
    },
    expect: ok({ r: [10, 20, 30], mine: false }),
  },
  {
    // AWS refuses an inner scope assigning a name an outer one assigns (see the definition checks).
    name: 'Scope: an iteration\'s own variable stays inside it',
    definition: {
      QueryLanguage: J, StartAt: 'A',
      States: {
        A: pass({ Assign: { v: 'outer' }, Next: 'M' }),
        M: { Type: 'Map', Items: [1], Next: 'After', ItemProcessor: { StartAt: 'I1', States: { I1: pass({ Assign: { w: 'inner' }, Next: 'I2' }), I2: pass({ Output: '{% $w %}', End: true }) } } },
        After: pass({ Output: '{% [$states.input[0], $v] %}', End: true }),
      },
    },
    expect: ok(['inner', 'outer']),
  },
  {
    name: 'Scope: a Map inside a Parallel reads both outer scopes',
    definition: {
      QueryLanguage: J, StartAt: 'A',
      States: {
        A: pass({ Assign: { a: 1 }, Next: 'P' }),
        P: {
          Type: 'Parallel', End: true,
          Branches: [{
            StartAt: 'B', States: {
              B: pass({ Assign: { b: 2 }, Next: 'M' }),
              M: { Type: 'Map', Items: [100], End: true, ItemProcessor: { StartAt: 'I', States: { I: pass({ Output: '{% $states.input + $a + $b %}', End: true }) } } },
            },
          }],
        },
      },
    },
    expect: ok([[103]]),
  },
];

const jsonPath: SfnCase[] = [
  {
    name: 'Assign (JSONPath): literals and .$ paths; $name in a later Parameters',
    definition: {
      StartAt: 'A',
      States: { A: pass({ Assign: { lit: 1, 'fromInput.$': '$.n' }, Next: 'B' }), B: pass({ Parameters: { 'a.$': '$lit', 'b.$': '$fromInput', c: '$lit' }, End: true }) },
    },
    input: { n: 'N' }, expect: ok({ a: 1, b: 'N', c: '$lit' }),
    check: (run) => expect(assigned(run, 'PassStateExited')).toEqual({ lit: '1', fromInput: '"N"' }),
  },
  {
    name: 'Assign (JSONPath): "x.$": "$var.field" reads into a variable',
    definition: { StartAt: 'A', States: { A: pass({ Assign: { 'o.$': '$' }, Next: 'B' }), B: pass({ Parameters: { 'v.$': '$o.deep.k' }, End: true }) } },
    input: { deep: { k: 5 } }, expect: ok({ v: 5 }),
  },
  {
    name: 'Assign (JSONPath): an intrinsic with a variable argument',
    definition: { StartAt: 'A', States: { A: pass({ Assign: { name: 'x' }, Next: 'B' }), B: pass({ Parameters: { 'g.$': "States.Format('hi {}', $name)" }, End: true }) } },
    expect: ok({ g: 'hi x' }),
  },
  {
    name: 'Assign (JSONPath): a Task assigns from its result, after ResultSelector',
    definition: {
      StartAt: 'T',
      States: { T: { Type: 'Task', Resource: A, ResultSelector: { 'v.$': '$.value' }, Assign: { 'got.$': '$.v' }, ResultPath: null, Next: 'P' }, P: pass({ Parameters: { 'got.$': '$got', 'in.$': '$' }, End: true }) },
    },
    input: { id: 1 }, worker: [{ output: { value: 'V' } }], expect: ok({ got: 'V', in: { id: 1 } }),
  },
  {
    name: 'Assign (JSONPath): InputPath reads a variable',
    definition: { StartAt: 'A', States: { A: pass({ Assign: { 'keep.$': '$.k' }, Next: 'B' }), B: pass({ InputPath: '$keep', End: true }) } },
    input: { k: { z: 1 } }, expect: ok({ z: 1 }),
  },
  {
    name: 'Assign (JSONPath): a Choice rule compares a variable',
    definition: {
      StartAt: 'A',
      States: {
        A: pass({ Assign: { limit: 5 }, Next: 'C' }),
        C: { Type: 'Choice', Choices: [{ Variable: '$limit', NumericGreaterThan: 3, Next: 'Yes', Assign: { why: 'big' } }], Default: 'No' },
        Yes: pass({ Parameters: { 'why.$': '$why' }, End: true }), No: pass({ Result: 'no', End: true }),
      },
    },
    expect: ok({ why: 'big' }),
  },
  {
    name: 'Assign (JSONPath): a catcher assigns from the error output',
    definition: {
      StartAt: 'T',
      States: { T: { Type: 'Task', Resource: A, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'P', Assign: { 'err.$': '$.Error' }, ResultPath: '$.e' }], End: true }, P: pass({ Parameters: { 'err.$': '$err' }, End: true }) },
    },
    worker: [{ error: 'Bad' }], expect: ok({ err: 'Bad' }),
  },
  {
    name: 'Mixing: a JSONata state reads a variable a JSONPath state assigned',
    definition: { StartAt: 'A', States: { A: pass({ Assign: { 'v.$': '$.n' }, Next: 'B' }), B: pass({ QueryLanguage: J, Output: '{% $v + 1 %}', End: true }) } },
    input: { n: 1 }, expect: ok(2),
  },
  {
    name: 'Mixing: a JSONPath state reads a variable a JSONata state assigned',
    definition: { StartAt: 'A', States: { A: pass({ QueryLanguage: J, Assign: { v: '{% $states.input.n * 3 %}' }, Next: 'B' }), B: pass({ Parameters: { 'v.$': '$v' }, End: true }) } },
    input: { n: 2 }, expect: ok({ v: 6 }),
  },
];

/** A string of `n` ASCII characters. */
const big = (n: number) => 'x'.repeat(n);

const limits: SfnCase[] = [
  {
    name: 'Limit: one state may assign up to 256 KiB',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { v: '{% $states.input.s %}' }, Output: 'ok', End: true }) } },
    input: { s: big(250_000) }, expect: ok('ok'),
  },
  {
    name: 'Limit: assignments over 256 KiB fail with States.DataLimitExceeded',
    definition: { QueryLanguage: J, StartAt: 'A', States: { A: pass({ Assign: { v: '{% $states.input.s %}', w: '{% $states.input.s %}' }, Output: 'ok', End: true }) } },
    input: { s: big(140_000) },
    expect: failed('States.DataLimitExceeded', "The state/task 'A' assigned variables with a size exceeding the maximum number of bytes service limit."),
    events: ['PassStateEntered', 'ExecutionFailed'],
  },
  {
    name: 'Limit: a state with too large an assignment is caught like any data limit (no second catch)',
    definition: {
      QueryLanguage: J, StartAt: 'T',
      States: {
        T: { Type: 'Task', Resource: A, Assign: { v: '{% $states.result %}', w: '{% $states.result %}' }, Catch: [{ ErrorEquals: ['States.DataLimitExceeded'], Next: 'P' }], End: true },
        P: pass({ Output: '{% $states.input.Error %}', End: true }),
      },
    },
    worker: [{ output: big(140_000) }], expect: ok('States.DataLimitExceeded'),
  },
];

export const VARIABLE_CASES: SfnCase[] = [...jsonata, ...scope, ...jsonPath, ...limits];
