import { describe, expect, it } from 'vitest';
import { applyInputPath, applyOutputPath, applyResultPath } from '../../src/sfn/asl/data-flow.js';
import { AslError } from '../../src/sfn/asl/errors.js';

const input = { a: { b: 1 }, list: [1, 2, 3], s: 'text' };
const ctx = { Execution: { Id: 'arn:e' } };

function aslErrorOf(fn: () => unknown): AslError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AslError) return e;
    throw e;
  }
  throw new Error('expected an AslError');
}

describe('InputPath', () => {
  it.each<[string | null | undefined, unknown]>([
    [undefined, input],
    ['$', input],
    [null, {}],
    ['$.a', { b: 1 }],
    ['$.a.b', 1],
    ['$.list[*]', [1, 2, 3]],
    ['$$.Execution.Id', 'arn:e'],
  ])('%s', (p, want) => {
    expect(applyInputPath(input, p, ctx)).toEqual(want);
  });

  it('a path that matches nothing → States.Runtime', () => {
    const e = aslErrorOf(() => applyInputPath(input, '$.x', ctx));
    expect(e.error).toBe('States.Runtime');
    expect(e.cause).toContain("Invalid path '$.x' : No results for path: $['x']");
  });
});

describe('ResultPath', () => {
  it.each<[string | null | undefined, unknown]>([
    [undefined, 'R'],
    ['$', 'R'],
    [null, input],
    ['$.r', { ...input, r: 'R' }],
    ['$.a.c', { ...input, a: { b: 1, c: 'R' } }],
    ['$.new.deep', { ...input, new: { deep: 'R' } }],
  ])('%s', (p, want) => {
    const before = JSON.stringify(input);
    expect(applyResultPath(input, 'R', p)).toEqual(want);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('a non-object on the way → States.ResultPathMatchFailure', () => {
    expect(aslErrorOf(() => applyResultPath(input, 'R', '$.s.x')).error).toBe('States.ResultPathMatchFailure');
    expect(aslErrorOf(() => applyResultPath('str', 'R', '$.x')).error).toBe('States.ResultPathMatchFailure');
  });
});

describe('OutputPath', () => {
  it.each<[string | null | undefined, unknown]>([
    [undefined, input],
    ['$', input],
    [null, {}],
    ['$.a', { b: 1 }],
    ['$.list[1:]', [2, 3]],
    ['$$.Execution', { Id: 'arn:e' }],
  ])('%s', (p, want) => {
    expect(applyOutputPath(input, p, ctx)).toEqual(want);
  });

  it('a path that matches nothing → States.Runtime', () => {
    const e = aslErrorOf(() => applyOutputPath(input, '$.a.zz', ctx));
    expect(e.error).toBe('States.Runtime');
    expect(e.cause).toContain("$['a']['zz']");
  });
});

describe('the pipeline end to end', () => {
  it('InputPath → result → ResultPath → OutputPath', () => {
    const effective = applyInputPath({ order: { id: 7 }, meta: 1 }, '$.order', ctx);
    expect(effective).toEqual({ id: 7 });
    const merged = applyResultPath({ order: { id: 7 }, meta: 1 }, { ok: true }, '$.order.result');
    expect(merged).toEqual({ order: { id: 7, result: { ok: true } }, meta: 1 });
    expect(applyOutputPath(merged, '$.order', ctx)).toEqual({ id: 7, result: { ok: true } });
  });
});
