import { describe, expect, it } from 'vitest';
import { CHOICE_OPERATORS, evaluateChoiceRule } from '../../src/sfn/asl/choice-rules.js';
import { AslError } from '../../src/sfn/asl/errors.js';
import type { ChoiceRule } from '../../src/sfn/asl/types.js';

const input = {
  s: 'beta',
  s2: 'beta',
  sLow: 'alpha',
  n: 5,
  n2: 5,
  nHigh: 7.5,
  b: true,
  b2: false,
  t: '2026-01-01T12:00:00Z',
  tSame: '2026-01-01T13:00:00+01:00',
  tLater: '2026-01-01T12:00:00.001Z',
  nul: null,
  arr: [1, 2],
  obj: { k: 'v' },
  file: 'log-2026.txt',
  star: 'a*b',
  back: 'a\\b',
};
const ctx = { Execution: { Name: 'exec-7' }, State: { RetryCount: 2 } };

const run = (rule: ChoiceRule) => evaluateChoiceRule(rule, input, ctx);
const cmp = (variable: string, op: string, operand: unknown): ChoiceRule => ({ Variable: variable, [op]: operand, Next: 'X' });

describe('comparisons: true, false and wrong type', () => {
  it.each<[string, string, unknown, boolean]>([
    ['$.s', 'StringEquals', 'beta', true],
    ['$.s', 'StringEquals', 'Beta', false],
    ['$.n', 'StringEquals', '5', false],
    ['$.s', 'StringLessThan', 'gamma', true],
    ['$.s', 'StringLessThan', 'alpha', false],
    ['$.s', 'StringLessThan', 'beta', false],
    ['$.n', 'StringLessThan', 'z', false],
    ['$.s', 'StringGreaterThan', 'alpha', true],
    ['$.s', 'StringGreaterThan', 'beta', false],
    ['$.b', 'StringGreaterThan', 'a', false],
    ['$.s', 'StringLessThanEquals', 'beta', true],
    ['$.s', 'StringLessThanEquals', 'b', false],
    ['$.nul', 'StringLessThanEquals', 'z', false],
    ['$.s', 'StringGreaterThanEquals', 'beta', true],
    ['$.s', 'StringGreaterThanEquals', 'c', false],
    ['$.arr', 'StringGreaterThanEquals', 'a', false],
    ['$.file', 'StringMatches', 'log-*.txt', true],
    ['$.file', 'StringMatches', '*.txt', true],
    ['$.file', 'StringMatches', '*', true],
    ['$.file', 'StringMatches', 'log-*.csv', false],
    ['$.file', 'StringMatches', 'log', false],
    ['$.file', 'StringMatches', 'log-2026.tx.', false],
    ['$.star', 'StringMatches', 'a\\*b', true],
    ['$.file', 'StringMatches', 'log\\*', false],
    ['$.back', 'StringMatches', 'a\\\\b', true],
    ['$.n', 'StringMatches', '*', false],
    ['$.n', 'NumericEquals', 5, true],
    ['$.n', 'NumericEquals', 5.0001, false],
    ['$.s', 'NumericEquals', 5, false],
    ['$.n', 'NumericLessThan', 6, true],
    ['$.n', 'NumericLessThan', 5, false],
    ['$.s', 'NumericLessThan', 6, false],
    ['$.n', 'NumericGreaterThan', 4.5, true],
    ['$.n', 'NumericGreaterThan', 5, false],
    ['$.nul', 'NumericGreaterThan', 0, false],
    ['$.n', 'NumericLessThanEquals', 5, true],
    ['$.nHigh', 'NumericLessThanEquals', 7, false],
    ['$.b', 'NumericLessThanEquals', 5, false],
    ['$.n', 'NumericGreaterThanEquals', 5, true],
    ['$.n', 'NumericGreaterThanEquals', 5.5, false],
    ['$.obj', 'NumericGreaterThanEquals', 0, false],
    ['$.b', 'BooleanEquals', true, true],
    ['$.b', 'BooleanEquals', false, false],
    ['$.s', 'BooleanEquals', true, false],
    ['$.t', 'TimestampEquals', '2026-01-01T12:00:00Z', true],
    ['$.tSame', 'TimestampEquals', '2026-01-01T12:00:00.000Z', true],
    ['$.t', 'TimestampEquals', '2026-01-01T12:00:01Z', false],
    ['$.s', 'TimestampEquals', '2026-01-01T12:00:00Z', false],
    ['$.t', 'TimestampLessThan', '2026-01-01T12:00:00.001Z', true],
    ['$.t', 'TimestampLessThan', '2026-01-01T07:00:00-05:00', false],
    ['$.n', 'TimestampLessThan', '2030-01-01T00:00:00Z', false],
    ['$.tLater', 'TimestampGreaterThan', '2026-01-01T12:00:00.0009Z', true],
    ['$.t', 'TimestampGreaterThan', '2026-01-01T12:00:00Z', false],
    ['$.file', 'TimestampGreaterThan', '2000-01-01T00:00:00Z', false],
    ['$.t', 'TimestampLessThanEquals', '2026-01-01T12:00:00Z', true],
    ['$.tLater', 'TimestampLessThanEquals', '2026-01-01T12:00:00Z', false],
    ['$.b', 'TimestampLessThanEquals', '2030-01-01T00:00:00Z', false],
    ['$.t', 'TimestampGreaterThanEquals', '2025-12-31T23:59:59.999999999Z', true],
    ['$.t', 'TimestampGreaterThanEquals', '2026-01-02T00:00:00Z', false],
    ['$.nul', 'TimestampGreaterThanEquals', '2000-01-01T00:00:00Z', false],
  ])('%s %s %j → %s', (variable, op, operand, want) => {
    expect(run(cmp(variable, op, operand))).toBe(want);
  });
});

describe('…Path comparisons read the operand from the input', () => {
  it.each<[string, string, string, boolean]>([
    ['$.s', 'StringEqualsPath', '$.s2', true],
    ['$.s', 'StringEqualsPath', '$.sLow', false],
    ['$.s', 'StringEqualsPath', '$.n', false],
    ['$.sLow', 'StringLessThanPath', '$.s', true],
    ['$.s', 'StringLessThanPath', '$.sLow', false],
    ['$.s', 'StringGreaterThanPath', '$.sLow', true],
    ['$.sLow', 'StringGreaterThanPath', '$.s', false],
    ['$.s', 'StringLessThanEqualsPath', '$.s2', true],
    ['$.s', 'StringLessThanEqualsPath', '$.sLow', false],
    ['$.s', 'StringGreaterThanEqualsPath', '$.s2', true],
    ['$.sLow', 'StringGreaterThanEqualsPath', '$.s', false],
    ['$.n', 'NumericEqualsPath', '$.n2', true],
    ['$.n', 'NumericEqualsPath', '$.nHigh', false],
    ['$.n', 'NumericEqualsPath', '$.s', false],
    ['$.n', 'NumericLessThanPath', '$.nHigh', true],
    ['$.nHigh', 'NumericLessThanPath', '$.n', false],
    ['$.nHigh', 'NumericGreaterThanPath', '$.n', true],
    ['$.n', 'NumericGreaterThanPath', '$.n2', false],
    ['$.n', 'NumericLessThanEqualsPath', '$.n2', true],
    ['$.nHigh', 'NumericLessThanEqualsPath', '$.n', false],
    ['$.n', 'NumericGreaterThanEqualsPath', '$.n2', true],
    ['$.n', 'NumericGreaterThanEqualsPath', '$.nHigh', false],
    ['$.n', 'NumericGreaterThanEqualsPath', '$$.State.RetryCount', true],
    ['$.b', 'BooleanEqualsPath', '$.b', true],
    ['$.b', 'BooleanEqualsPath', '$.b2', false],
    ['$.b', 'BooleanEqualsPath', '$.s', false],
    ['$.t', 'TimestampEqualsPath', '$.tSame', true],
    ['$.t', 'TimestampEqualsPath', '$.tLater', false],
    ['$.t', 'TimestampEqualsPath', '$.s', false],
    ['$.t', 'TimestampLessThanPath', '$.tLater', true],
    ['$.tLater', 'TimestampLessThanPath', '$.t', false],
    ['$.tLater', 'TimestampGreaterThanPath', '$.t', true],
    ['$.t', 'TimestampGreaterThanPath', '$.tSame', false],
    ['$.t', 'TimestampLessThanEqualsPath', '$.tSame', true],
    ['$.tLater', 'TimestampLessThanEqualsPath', '$.t', false],
    ['$.t', 'TimestampGreaterThanEqualsPath', '$.tSame', true],
    ['$.t', 'TimestampGreaterThanEqualsPath', '$.tLater', false],
  ])('%s %s %s → %s', (variable, op, path, want) => {
    expect(run(cmp(variable, op, path))).toBe(want);
  });
});

describe('type tests', () => {
  it.each<[string, string, boolean, boolean]>([
    ['$.nul', 'IsNull', true, true],
    ['$.s', 'IsNull', true, false],
    ['$.s', 'IsNull', false, true],
    ['$.s', 'IsPresent', true, true],
    ['$.nul', 'IsPresent', true, true],
    ['$.missing', 'IsPresent', true, false],
    ['$.missing', 'IsPresent', false, true],
    ['$.obj.k', 'IsPresent', true, true],
    ['$.obj.k.z', 'IsPresent', true, false],
    ['$$.Execution.Name', 'IsPresent', true, true],
    ['$.n', 'IsNumeric', true, true],
    ['$.nHigh', 'IsNumeric', true, true],
    ['$.s', 'IsNumeric', true, false],
    ['$.s', 'IsNumeric', false, true],
    ['$.s', 'IsString', true, true],
    ['$.n', 'IsString', true, false],
    ['$.t', 'IsString', true, true],
    ['$.b', 'IsBoolean', true, true],
    ['$.b2', 'IsBoolean', true, true],
    ['$.s', 'IsBoolean', true, false],
    ['$.t', 'IsTimestamp', true, true],
    ['$.tSame', 'IsTimestamp', true, true],
    ['$.s', 'IsTimestamp', true, false],
    ['$.n', 'IsTimestamp', true, false],
    ['$.s', 'IsTimestamp', false, true],
  ])('%s %s: %s → %s', (variable, op, operand, want) => {
    expect(run(cmp(variable, op, operand))).toBe(want);
  });

  it.each([
    ['2026-01-01T00:00:00Z', true],
    ['2026-02-28T23:59:59.123456789+05:30', true],
    ['2024-02-29T00:00:00Z', true],
    ['2026-02-29T00:00:00Z', false],
    ['2026-13-01T00:00:00Z', false],
    ['2026-01-01T24:00:00Z', false],
    ['2026-01-01t00:00:00z', false],
    ['2026-01-01 00:00:00Z', false],
    ['2026-01-01T00:00:00', false],
    ['2026-01-01', false],
    ['2026-01-01T00:00:00+0100', false],
  ])('IsTimestamp %s → %s', (t, want) => {
    expect(evaluateChoiceRule({ Variable: '$', IsTimestamp: true }, t)).toBe(want);
  });
});

describe('And, Or, Not', () => {
  const yes = cmp('$.n', 'NumericEquals', 5);
  const no = cmp('$.n', 'NumericEquals', 6);
  it.each<[string, ChoiceRule, boolean]>([
    ['And all true', { And: [yes, yes], Next: 'X' }, true],
    ['And one false', { And: [yes, no], Next: 'X' }, false],
    ['Or one true', { Or: [no, yes], Next: 'X' }, true],
    ['Or all false', { Or: [no, no], Next: 'X' }, false],
    ['Not false', { Not: no, Next: 'X' }, true],
    ['Not true', { Not: yes, Next: 'X' }, false],
    ['nested', { And: [{ Not: no }, { Or: [no, { And: [yes, cmp('$.s', 'StringEquals', 'beta')] }] }], Next: 'X' }, true],
  ])('%s', (_, rule, want) => {
    expect(run(rule)).toBe(want);
  });

  it('Or short-circuits before a rule that would fail', () => {
    expect(run({ Or: [yes, cmp('$.missing', 'StringEquals', 'x')] })).toBe(true);
  });
});

describe('States.Runtime', () => {
  function runtimeError(rule: ChoiceRule): AslError {
    try {
      run(rule);
    } catch (e) {
      if (e instanceof AslError) return e;
      throw e;
    }
    throw new Error('expected an AslError');
  }

  it.each<[string, unknown]>([
    ['StringEquals', 'x'],
    ['NumericEquals', 1],
    ['BooleanEquals', true],
    ['TimestampEquals', '2026-01-01T00:00:00Z'],
    ['StringMatches', '*'],
    ['IsNull', true],
    ['IsString', false],
  ])('a missing Variable with %s', (op, operand) => {
    const e = runtimeError(cmp('$.x', op, operand));
    expect(e.error).toBe('States.Runtime');
    expect(e.cause).toBe("Invalid path '$.x': The choice state's condition path references an invalid value.");
  });

  it('a missing …Path operand', () => {
    const e = runtimeError(cmp('$.n', 'NumericEqualsPath', '$.nope'));
    expect(e.error).toBe('States.Runtime');
    expect(e.cause).toContain("'$.nope'");
  });

  it('a rule without an operator', () => {
    expect(runtimeError({ Variable: '$.n', Next: 'X' }).error).toBe('States.Runtime');
  });
});

describe('CHOICE_OPERATORS', () => {
  it('lists all 39 operators once', () => {
    expect(CHOICE_OPERATORS).toHaveLength(39);
    expect(new Set(CHOICE_OPERATORS).size).toBe(39);
    for (const op of ['StringEquals', 'StringEqualsPath', 'StringMatches', 'NumericGreaterThanEqualsPath', 'BooleanEqualsPath', 'TimestampLessThanEquals', 'IsNull', 'IsPresent', 'IsNumeric', 'IsString', 'IsBoolean', 'IsTimestamp']) {
      expect(CHOICE_OPERATORS).toContain(op);
    }
    expect(CHOICE_OPERATORS).not.toContain('StringMatchesPath');
  });
});
