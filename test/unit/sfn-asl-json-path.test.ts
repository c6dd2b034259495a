import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AslError } from '../../src/sfn/asl/errors.js';
import { PathNotFoundError, canonicalPath, hasPath, isReferencePath, parsePath, readPath, writePath } from '../../src/sfn/asl/json-path.js';

const store = {
  a: { b: 1, 'c d': 'x', n: null },
  items: [
    { id: 1, price: 5, tag: 'cheap', ok: true },
    { id: 2, price: 15, tag: 'dear', ok: false },
    { id: 3, price: 10, ok: true },
  ],
  nums: [10, 20, 30, 40, 50],
};
const ctx = { Execution: { Id: 'arn:exec', Input: { k: 1 } }, Map: { Item: { Index: 2 } } };

describe('parsePath', () => {
  it.each([
    '$', '$$', '$.a', '$.a.b', "$['a b']", '$["a b"]', '$.a[0]', '$.a[-1]', '$.a[*]', '$.*', '$..a', '$..[0]', '$..*',
    '$.a[1:3]', '$.a[:2]', '$.a[-2:]', '$.a[::2]', '$.a[0,2]', "$['a','b']", '$.a[?(@.x == 1)]', "$.a[?(@.x != 'y')]",
    '$.a[?(@.x < 1.5)]', '$.a[?(@.x)]', '$.a[?(@.x.y[0] >= -2)]', '$.a[?(@ > 3)]', '$.a[?(@.ok == true)]', '$$.Execution.Id',
    '$.foo-bar', '$.a_b1', "$['it\\'s']",
  ])('accepts %s', (p) => {
    expect(parsePath(p)).not.toBeNull();
  });

  it.each([
    '', 'a', '$.', '$..', '$1a', '$.a.', '$.a[', '$.a[]', '$.a[x]', "$.a['x]", '$.a[0', '$.a[?(@.x ==)]', '$.a[?(1)]',
    '$.a[1:2:0]', '$.a b', '$.a)', '$.a[?(@..x == 1)]', '@.a', ' $.a',
  ])('rejects %j', (p) => {
    expect(parsePath(p)).toBeNull();
  });

  it('returns the root and segments', () => {
    expect(parsePath("$$.a['b c'][2]")).toEqual([
      { kind: 'root', context: true },
      { kind: 'field', name: 'a' },
      { kind: 'field', name: 'b c' },
      { kind: 'index', index: 2 },
    ]);
    expect(parsePath('$.a[1:3]')![2]).toEqual({ kind: 'slice', start: 1, end: 3, step: 1 });
    expect(parsePath('$.a[0,2]')![2]).toEqual({ kind: 'union', keys: [0, 2] });
  });
});

describe('isReferencePath', () => {
  it.each([
    ['$', true], ['$.a.b', true], ["$['a b'].c", true], ['$.a[0]', true], ['$$.Execution.Id', true],
    ['$.a[-1]', false], ['$.a[*]', false], ['$..a', false], ['$.a[1:2]', false], ['$.a[0,1]', false],
    ['$.a[?(@.x == 1)]', false], ['$.*', false], ['nope', false],
  ])('%s → %s', (p, want) => {
    expect(isReferencePath(p)).toBe(want);
  });
});

describe('readPath', () => {
  it.each<[string, unknown]>([
    ['$', store],
    ['$.a.b', 1],
    ["$.a['c d']", 'x'],
    ['$.a.n', null],
    ['$.items[1].id', 2],
    ['$.nums[-1]', 50],
    ['$.items[*].id', [1, 2, 3]],
    ['$.items[*].tag', ['cheap', 'dear']],
    ['$.nums[1:3]', [20, 30]],
    ['$.nums[-2:]', [40, 50]],
    ['$.nums[:2]', [10, 20]],
    ['$.nums[::2]', [10, 30, 50]],
    ['$.nums[0,2,9]', [10, 30]],
    ["$.a['b','c d','zz']", [1, 'x']],
    ['$..price', [5, 15, 10]],
    ['$..id', [1, 2, 3]],
    ['$.items[?(@.price > 5)].id', [2, 3]],
    ['$.items[?(@.price <= 10)].id', [1, 3]],
    ['$.items[?(@.price >= 10)].id', [2, 3]],
    ['$.items[?(@.price < 10)].id', [1]],
    ["$.items[?(@.tag == 'dear')].id", [2]],
    ["$.items[?(@.tag != 'dear')].id", [1, 3]],
    ['$.items[?(@.ok == true)].id', [1, 3]],
    ['$.items[?(@.tag)].id', [1, 2]],
    ['$.nums[?(@ > 30)]', [40, 50]],
    ['$.items[?(@.price > 100)]', []],
    ['$.missing[*]', []],
    ['$.a.*', [1, 'x', null]],
  ])('%s', (p, want) => {
    expect(readPath(store, p)).toEqual(want);
  });

  it('reads $$ paths from the context', () => {
    expect(readPath(store, '$$.Execution.Id', ctx)).toBe('arn:exec');
    expect(readPath(store, '$$', ctx)).toEqual(ctx);
    expect(readPath(store, '$$.Map.Item.Index', ctx)).toBe(2);
  });

  it.each(['$.x', '$.a.b.c', '$.items[3]', '$.nums[-6]', '$.a[0]', '$.items.id', '$$.Task.Token'])('throws PathNotFoundError for %s', (p) => {
    let err: unknown;
    try {
      readPath(store, p, ctx);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PathNotFoundError);
    expect((err as PathNotFoundError).path).toBe(p);
  });

  it('hasPath', () => {
    expect(hasPath(store, '$.a.n')).toBe(true);
    expect(hasPath(store, '$.a.zz')).toBe(false);
    expect(hasPath(store, '$$.Execution', ctx)).toBe(true);
    expect(hasPath(store, '$.items[?(@.price > 100)]')).toBe(false);
    expect(hasPath(store, '$.items[?(@.price > 1)]')).toBe(true);
    expect(hasPath(store, 'bad')).toBe(false);
  });

  it('canonicalPath', () => {
    expect(canonicalPath('$.a.b[0]')).toBe("$['a']['b'][0]");
    expect(canonicalPath('$$.x')).toBe("$$['x']");
    expect(canonicalPath('$.a[*]')).toBe('$.a[*]');
  });
});

describe('writePath', () => {
  const input = { a: { b: 1 }, s: 'str', n: 5, arr: [1, 2], nul: null };
  const frozen = JSON.stringify(input);

  it.each<[string, unknown, unknown]>([
    ['$', 'R', 'R'],
    ['$.r', 'R', { ...input, r: 'R' }],
    ['$.a.c', 'R', { ...input, a: { b: 1, c: 'R' } }],
    ['$.a.b', 'R', { ...input, a: { b: 'R' } }],
    ['$.x.y.z', 'R', { ...input, x: { y: { z: 'R' } } }],
    ["$['q r']", 'R', { ...input, 'q r': 'R' }],
    ['$.arr[0]', 'R', { ...input, arr: ['R', 2] }],
    ['$.arr[2]', 'R', { ...input, arr: [1, 2, 'R'] }],
  ])('%s', (p, value, want) => {
    expect(writePath(input, p, value)).toEqual(want);
    expect(JSON.stringify(input)).toBe(frozen);
  });

  it('creates an object from a non-object-free start', () => {
    expect(writePath(undefined, '$.a', 1)).toEqual({ a: 1 });
  });

  it.each(['$.s.x', '$.n.x', '$.arr.x', '$.nul.x', '$.a.b.c', '$.arr[5]', '$.a[0]', '$.a[*]', '$$.x'])('%s → States.ResultPathMatchFailure', (p) => {
    expect(() => writePath(input, p, 1)).toThrowError(AslError);
    try {
      writePath(input, p, 1);
    } catch (e) {
      expect((e as AslError).error).toBe('States.ResultPathMatchFailure');
    }
    expect(JSON.stringify(input)).toBe(frozen);
  });

  it('writing into a string root fails', () => {
    expect(() => writePath('text', '$.a', 1)).toThrowError(/ResultPathMatchFailure/);
  });
});

describe('writePath / readPath properties', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
  it('what is written is read back, and the target is never mutated', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(name, { minLength: 1, maxLength: 4 }), fc.jsonValue(), (target, names, value) => {
        const path = `$.${names.join('.')}`;
        const before = JSON.stringify(target);
        let out: unknown;
        try {
          out = writePath(target, path, value);
        } catch (e) {
          expect((e as AslError).error).toBe('States.ResultPathMatchFailure');
          expect(JSON.stringify(target)).toBe(before);
          return;
        }
        expect(readPath(out, path)).toEqual(value);
        expect(JSON.stringify(target)).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('bracket and dot notation read the same node', () => {
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), fc.jsonValue(), (names, value) => {
        const data = writePath({}, `$.${names.join('.')}`, value);
        expect(readPath(data, `$${names.map((n) => `['${n}']`).join('')}`)).toEqual(value);
      }),
      { numRuns: 200 },
    );
  });
});
