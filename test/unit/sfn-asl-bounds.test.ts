import { describe, expect, it } from 'vitest';
import { BOUND_MESSAGES, Budget, EVALUATION_LIMITS } from '../../src/sfn/asl/bounds.js';
import { choiceBudget, evaluateChoiceRule } from '../../src/sfn/asl/choice-rules.js';
import { applyInputPath, applyOutputPath } from '../../src/sfn/asl/data-flow.js';
import { AslError } from '../../src/sfn/asl/errors.js';
import { evaluateIntrinsic } from '../../src/sfn/asl/intrinsics.js';
import { hasPath, readPath, writePath } from '../../src/sfn/asl/json-path.js';
import { evaluateTemplate } from '../../src/sfn/asl/payload-template.js';
import { isInvalidDefinition, parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { runCase } from '../helpers/sfn-driver.js';

/** `{"a":{"a":…{"a":leaf}}}`, `depth` objects deep. */
function nestedObjects(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i += 1) v = { a: v };
  return v;
}

/** `[[…[leaf]…]]`, `depth` arrays deep. */
function nestedArrays(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i += 1) v = [v];
  return v;
}

/** What `fn` threw (it must throw). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

/** `fn` returns, or throws an AslError: never a RangeError or anything else. */
function settles(fn: () => unknown): { value?: unknown; error?: AslError } {
  try {
    return { value: fn() };
  } catch (e) {
    if (e instanceof AslError) return { error: e };
    throw e;
  }
}

function timed<T>(fn: () => T): { ms: number; result: T } {
  const t = performance.now();
  const result = fn();
  return { ms: performance.now() - t, result };
}

describe('the Budget', () => {
  it('counts steps and characters across its views, each failing with its own error and subject', () => {
    const b = Budget.start('States.Runtime', 'the payload template', { steps: 10, chars: 100, depth: 3 });
    const inner = b.as('States.IntrinsicFailure', 'States.Format');
    b.step(6);
    const e = thrown(() => inner.step(5));
    expect(e).toBeInstanceOf(AslError);
    expect(e).toMatchObject({ error: 'States.IntrinsicFailure', cause: BOUND_MESSAGES.steps('States.Format', 10) });
    expect(thrown(() => b.charge('x'.repeat(99)))).toMatchObject({ error: 'States.Runtime', cause: BOUND_MESSAGES.chars('the payload template', 100) });
  });

  it('refuses a value nested past its depth, and serves JSONata later with States.QueryEvaluationError', () => {
    const b = Budget.start('States.QueryEvaluationError', 'the JSONata expression', { steps: 10, chars: 1000, depth: 3 });
    b.charge(nestedArrays(3));
    expect(thrown(() => b.charge(nestedArrays(4)))).toMatchObject({
      error: 'States.QueryEvaluationError', cause: BOUND_MESSAGES.depth('the JSONata expression', 3),
    });
  });

  it('names a huge subject by its start only', () => {
    const b = Budget.start('States.Runtime', `the JSONPath '${'$.a'.repeat(10_000)}'`, { steps: 0, chars: 0, depth: 0 });
    const e = thrown(() => b.step()) as AslError;
    expect(e.cause.length).toBeLessThan(400);
  });
});

describe('JSONPath: bounded steps and results, no recursion, no spread', () => {
  // The input: 6 KB nested 1,000 deep. Before: V8 aborted the process ("invalid size error").
  const deep1000 = nestedObjects(1000);

  it('a deep scan over a 1,000-deep input fails with States.Runtime at once', () => {
    expect(JSON.stringify(deep1000).length).toBeGreaterThan(6000);
    const { ms, result } = timed(() => thrown(() => readPath(deep1000, '$..*..*..*..*')));
    expect(result).toMatchObject({ error: 'States.Runtime', cause: BOUND_MESSAGES.steps("the JSONPath '$..*..*..*..*'", EVALUATION_LIMITS.steps) });
    expect(ms).toBeLessThan(2000);
  });

  it('the same path as Parameters, InputPath, a Choice Variable or inside an intrinsic fails the same way', () => {
    const runtime = { error: 'States.Runtime' };
    expect(thrown(() => evaluateTemplate({ 'x.$': '$..*..*..*..*' }, deep1000, {}))).toMatchObject(runtime);
    expect(thrown(() => applyInputPath(deep1000, '$..*..*..*..*', {}))).toMatchObject(runtime);
    expect(thrown(() => applyOutputPath(deep1000, '$..*..*..*..*', {}))).toMatchObject(runtime);
    expect(thrown(() => evaluateChoiceRule({ Variable: '$..*..*..*..*', IsNull: true }, deep1000, {}))).toMatchObject(runtime);
    expect(thrown(() => hasPath(deep1000, '$..*..*..*..*[?(@.a)]'))).toMatchObject(runtime);
    expect(thrown(() => evaluateTemplate({ 'n.$': 'States.ArrayLength($..*..*..*..*)' }, deep1000, {}))).toMatchObject({
      error: 'States.IntrinsicFailure', cause: BOUND_MESSAGES.steps('States.ArrayLength', EVALUATION_LIMITS.steps),
    });
  });

  it('a deep scan whose matches are far larger than the input fails on their size', () => {
    // 300 levels of 1 KB strings: `$..*` lists each level with everything under it (~45 MB of JSON).
    let v: unknown = 0;
    for (let i = 0; i < 300; i += 1) v = { s: 'x'.repeat(1000), a: v };
    expect(thrown(() => readPath(v, '$..*'))).toMatchObject({ error: 'States.Runtime', cause: BOUND_MESSAGES.chars("the JSONPath '$..*'", EVALUATION_LIMITS.chars) });
  });

  it('wildcards, slices and filters over 300,000 elements answer (no push(...) spread)', () => {
    const wide = Array.from({ length: 300_000 }, (_, i) => i % 3);
    expect((readPath(wide, '$[*]') as unknown[]).length).toBe(300_000);
    expect((readPath({ w: wide }, '$.w.*') as unknown[]).length).toBe(300_000);
    expect((readPath(wide, '$[0:300000]') as unknown[]).length).toBe(300_000);
    expect((readPath(wide, '$[?(@ == 1)]') as unknown[]).length).toBe(100_000);
  });

  it('a 20,000-deep input is read, scanned and written without overflowing the stack', () => {
    const deep = nestedObjects(20_000, 'leaf');
    expect(readPath(deep, `$${'.a'.repeat(20_000)}`)).toBe('leaf');
    expect(hasPath(deep, '$..b')).toBe(false);
    expect(readPath(deep, "$..[?(@ == 'leaf')]")).toEqual([]);
    expect(settles(() => readPath(deep, '$..a')).error).toMatchObject({ error: 'States.Runtime' });
    expect(settles(() => readPath(nestedArrays(20_000), '$..*')).error).toMatchObject({ error: 'States.Runtime' });
    const w = thrown(() => writePath(nestedArrays(20_000), '$.x', 1)) as AslError;
    expect(w.error).toBe('States.ResultPathMatchFailure');
    expect(w.cause).toContain('[[[[');
  });
});

describe('intrinsics: bounded results, deep values', () => {
  const big = { s: 'x'.repeat(200_000), o: { k: 'y'.repeat(200_000) } };

  it('functions that multiply their input stop at the character bound', () => {
    const bound = { error: 'States.IntrinsicFailure' };
    expect(thrown(() => evaluateIntrinsic(`States.Format('${'{}'.repeat(6)}', ${'$.s, '.repeat(5)}$.s)`, big, {}))).toMatchObject({
      ...bound, cause: BOUND_MESSAGES.chars('States.Format', EVALUATION_LIMITS.chars),
    });
    expect(thrown(() => evaluateIntrinsic(`States.Array(${'$.o, '.repeat(5)}$.o)`, big, {}))).toMatchObject({
      ...bound, cause: BOUND_MESSAGES.chars('States.Array', EVALUATION_LIMITS.chars),
    });
    expect(thrown(() => evaluateIntrinsic(`States.JsonToString(States.Array(${'$.o, '.repeat(5)}$.o))`, big, {}))).toMatchObject(bound);
    // One copy is fine.
    expect(evaluateIntrinsic('States.JsonToString($.o)', big, {})).toBe(JSON.stringify(big.o));
  });

  it('StringToJson of text nested past the depth bound fails with States.IntrinsicFailure', () => {
    const text = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(thrown(() => evaluateIntrinsic('States.StringToJson($.t)', { t: text }, {}))).toMatchObject({
      error: 'States.IntrinsicFailure', cause: BOUND_MESSAGES.depth('States.StringToJson', EVALUATION_LIMITS.depth),
    });
  });

  it('every function over a 20,000-deep value answers or fails with an AslError', () => {
    const input = { d: nestedArrays(20_000), o: nestedObjects(20_000), s: 'a,b' };
    const exprs = [
      'States.JsonToString($.d)', "States.Format('{}', $.o)", 'States.ArrayContains($.d, 1)', 'States.ArrayUnique($.d)',
      'States.ArrayLength($.d)', 'States.ArrayGetItem($.d, 0)', 'States.ArrayPartition($.d, 1)', 'States.Array($.d)',
      'States.JsonMerge($.o, $.o, false)', 'States.Hash($.d, \'SHA-256\')', 'States.StringSplit($.d, \',\')', 'States.Base64Encode($.o)',
    ];
    for (const expr of exprs) settles(() => evaluateIntrinsic(expr, input, {}));
    expect(evaluateIntrinsic('States.JsonToString($.d)', input, {})).toBe(`${'['.repeat(20_000)}1${']'.repeat(20_000)}`);
    expect(evaluateIntrinsic('States.ArrayContains($.d, 1)', input, {})).toBe(false);
    expect((evaluateIntrinsic("States.Format('{}', $.o)", input, {}) as string).startsWith('{a={a=')).toBe(true);
  });

  it('StringSplit with a long set of delimiters stays linear', () => {
    const delims = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    const { ms, result } = timed(() => evaluateIntrinsic('States.StringSplit($.s, $.d)', { s: `a${'b'.repeat(100_000)}${delims[7]}c`, d: delims }, {}));
    expect((result as string[]).length).toBe(2);
    expect(ms).toBeLessThan(2000);
  });
});

describe('payload templates and Choice rules: one budget for all their parts', () => {
  it('a template that places a large input many times fails with States.Runtime', () => {
    const input = { s: 'x'.repeat(200_000) };
    const template = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}.$`, '$']));
    expect(thrown(() => evaluateTemplate(template, input, {}))).toMatchObject({
      error: 'States.Runtime', cause: BOUND_MESSAGES.chars('the payload template', EVALUATION_LIMITS.chars),
    });
    expect(evaluateTemplate({ 'one.$': '$.s', 'two.$': '$.s' }, input, {})).toEqual({ one: input.s, two: input.s });
  });

  it('a template placing a 20,000-deep input fails on depth instead of overflowing later', () => {
    expect(thrown(() => evaluateTemplate({ 'x.$': '$' }, nestedObjects(20_000), {}))).toMatchObject({
      error: 'States.Runtime', cause: BOUND_MESSAGES.depth('the payload template', EVALUATION_LIMITS.depth),
    });
  });

  it('many Choice rules share one budget: each costs little, all of them pass the bound', () => {
    const input = Array.from({ length: 60_000 }, () => 0);
    const rule = { Variable: '$..*', IsNull: true, Next: 'X' };
    expect(evaluateChoiceRule(rule, input, {})).toBe(false);
    const budget = choiceBudget();
    const e = thrown(() => { for (let i = 0; i < 40; i += 1) evaluateChoiceRule(rule, input, {}, budget); });
    expect(e).toMatchObject({ error: 'States.Runtime' });
  });

  it('a compiled Choice state with many costly rules fails the execution with States.Runtime', () => {
    const choices = Array.from({ length: 40 }, () => ({ Variable: '$..*', IsNull: true, Next: 'Done' }));
    const run = runCase({
      name: 'costly choice',
      definition: { StartAt: 'C', States: { C: { Type: 'Choice', Choices: choices, Default: 'Done' }, Done: { Type: 'Succeed' } } },
      input: Array.from({ length: 60_000 }, () => 0),
      expect: { status: 'FAILED' },
    });
    expect(run.output).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it('StringMatches with many stars answers at once (no backtracking regular expression)', () => {
    const rule = { Variable: '$.s', StringMatches: `${'*a'.repeat(40)}*b`, Next: 'X' };
    const { ms, result } = timed(() => evaluateChoiceRule(rule, { s: 'a'.repeat(20_000) }, {}));
    expect(result).toBe(false);
    expect(evaluateChoiceRule(rule, { s: `${'a'.repeat(20_000)}b` }, {})).toBe(true);
    expect(ms).toBeLessThan(1000);
  });
});

describe('error causes quote data within a bound', () => {
  it('a cause quoting the input, caught into the input and quoted again each round, stays small', () => {
    // Each round fails with States.ParameterPathFailure, whose cause quotes the whole input, which
    // holds the previous cause: escaped once more, it doubled every round (before: out of memory).
    const run = runCase({
      name: 'quoting loop',
      definition: {
        StartAt: 'P',
        States: {
          P: { Type: 'Parallel', Parameters: { 'x.$': '$.missing' }, Branches: [{ StartAt: 'B', States: { B: { Type: 'Succeed' } } }],
            Catch: [{ ErrorEquals: ['States.ALL'], Next: 'P', ResultPath: '$.err' }], End: true },
        },
      },
      input: { pad: 'x'.repeat(1000) },
      historyLimit: 300,
      expect: { status: 'FAILED' },
    });
    expect(run.output).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    const largest = Math.max(...run.events.map((e) => JSON.stringify(e.record).length));
    expect(largest).toBeLessThan(100_000);
  });

  it('an intrinsic failure quotes at most the start of a large argument', () => {
    const e = thrown(() => evaluateIntrinsic('States.ArrayLength($.s)', { s: 'x'.repeat(200_000) }, {})) as AslError;
    expect(e.error).toBe('States.IntrinsicFailure');
    expect(e.cause.length).toBeLessThan(20_000);
    expect(e.cause.endsWith('…')).toBe(true);
  });
});

describe('definitions nested too deeply', () => {
  it('a Pass Result nested 5,000 deep is refused with InvalidDefinition', () => {
    const text = `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true,"Result":${'['.repeat(5000)}${']'.repeat(5000)}}}}`;
    const e = thrown(() => parseDefinition(text));
    expect(isInvalidDefinition(e)).toBe(true);
    expect((e as Error).message).toContain('TOO_DEEPLY_NESTED: The states are too deeply nested.');
  });

  it('a Parameters template 900 deep is accepted and evaluated', () => {
    const def = parseDefinition(JSON.stringify({ StartAt: 'P', States: { P: { Type: 'Pass', Parameters: nestedObjects(900, { 'v.$': '$.v' }), End: true } } }));
    const params = (def.States.P as { Parameters: unknown }).Parameters;
    expect(JSON.stringify(evaluateTemplate(params, { v: 7 }, {}))).toContain('{"v":7}');
  });
});
