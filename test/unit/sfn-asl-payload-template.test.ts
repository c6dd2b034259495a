import { describe, expect, it } from 'vitest';
import { AslError } from '../../src/sfn/asl/errors.js';
import { evaluateTemplate } from '../../src/sfn/asl/payload-template.js';

const input = { order: { id: 7, items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }] }, who: 'ann', flag: false, none: null };
const ctx = {
  Execution: { Id: 'arn:exec', Name: 'e1', Input: { x: 1 } },
  State: { Name: 'Charge', EnteredTime: '2026-01-01T00:00:00Z', RetryCount: 0 },
  Task: { Token: 'tok' },
  Map: { Item: { Index: 1, Value: { sku: 'b' } } },
};

function failure(template: unknown): AslError {
  try {
    evaluateTemplate(template, input, ctx);
  } catch (e) {
    if (e instanceof AslError) return e;
    throw e;
  }
  throw new Error('expected an AslError');
}

describe('evaluateTemplate', () => {
  it.each<[string, unknown, unknown]>([
    ['a literal', { a: 1, b: 'x', c: null, d: true }, { a: 1, b: 'x', c: null, d: true }],
    ['a scalar template', 'plain', 'plain'],
    ['a path', { 'id.$': '$.order.id' }, { id: 7 }],
    ['the whole input', { 'all.$': '$' }, { all: input }],
    ['null and false values', { 'f.$': '$.flag', 'n.$': '$.none' }, { f: false, n: null }],
    ['a non-reference path → array', { 'skus.$': '$.order.items[*].sku' }, { skus: ['a', 'b'] }],
    ['a filter', { 'big.$': '$.order.items[?(@.qty > 1)].sku' }, { big: ['b'] }],
    ['context paths', { 'token.$': '$$.Task.Token', 'exec.$': '$$.Execution.Id', 'item.$': '$$.Map.Item.Value' }, { token: 'tok', exec: 'arn:exec', item: { sku: 'b' } }],
    ['the whole context', { 'c.$': '$$.State' }, { c: ctx.State }],
    ['an intrinsic', { 'msg.$': "States.Format('{} ordered #{}', $.who, $.order.id)" }, { msg: 'ann ordered #7' }],
    ['an intrinsic reading $$', { 'arr.$': 'States.Array($$.Execution.Name, $.order.id)' }, { arr: ['e1', 7] }],
    ['nested objects', { outer: { 'inner.$': '$.who', keep: 'k', deeper: { 'n.$': '$.order.items[0].qty' } } }, { outer: { inner: 'ann', keep: 'k', deeper: { n: 1 } } }],
    [
      'nested arrays',
      { list: [[{ 'a.$': '$.who' }, 1], { 'b.$': '$$.Map.Item.Index' }, 'lit', [[{ 'c.$': '$.order.id' }]]] },
      { list: [[{ a: 'ann' }, 1], { b: 1 }, 'lit', [[{ c: 7 }]]] },
    ],
    ['a top-level array', [{ 'a.$': '$.who' }, 2], [{ a: 'ann' }, 2]],
    ['an empty object', {}, {}],
    ['a `.$` key whose value is not a string stays as written', { 'x.$': 5 }, { 'x.$': 5 }],
    ['a key with `$` inside but not at the end', { 'a$b': '$.who' }, { 'a$b': '$.who' }],
  ])('%s', (_, template, want) => {
    expect(evaluateTemplate(template, input, ctx)).toEqual(want);
  });

  it('does not alias the template', () => {
    const template = { fixed: { a: [1, 2] } };
    const out = evaluateTemplate(template, input, ctx) as { fixed: { a: number[] } };
    expect(out).toEqual(template);
    expect(out.fixed).not.toBe(template.fixed);
  });

  it('a path that matches nothing → States.ParameterPathFailure', () => {
    const e = failure({ ok: 1, 'x.$': '$.order.missing' });
    expect(e.error).toBe('States.ParameterPathFailure');
    expect(e.cause).toContain("'$.order.missing'");
    expect(e.cause).toContain("'x.$'");
  });

  it('a missing context path → States.ParameterPathFailure', () => {
    expect(failure({ deep: [{ 't.$': '$$.Task.Nope' }] }).error).toBe('States.ParameterPathFailure');
  });

  it('a failing intrinsic → States.IntrinsicFailure', () => {
    expect(failure({ 'x.$': 'States.ArrayLength($.who)' }).error).toBe('States.IntrinsicFailure');
    expect(failure({ 'x.$': 'States.ArrayLength($.nothing)' }).error).toBe('States.IntrinsicFailure');
  });
});
