import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AslError } from '../../src/sfn/asl/errors.js';
import { evaluateIntrinsic, isIntrinsicCall, parseIntrinsic } from '../../src/sfn/asl/intrinsics.js';

const input = {
  name: 'Arnav',
  template: 'Hello, my name is {}.',
  n: 5,
  f: 2.5,
  arr: [1, 2, 3, 4, 5],
  dup: [1, 'a', 1, { x: 1 }, { x: 1 }, [2], [2], null, null],
  obj: { a: 1, b: [1, 2] },
  json1: { a: { a1: 1 }, b: 2 },
  json2: { a: { a3: 1 }, c: 3 },
  str: '{"k":[1,true]}',
  csv: 'This.is+a,test=string',
  splitter: '.+,=',
  b64: 'RGF0YSB0byBlbmNvZGU=',
  arn: 'arn:aws:imagebuilder:us-east-1:123456789012:image-recipe/myrecipe.stable/1.0.0',
};
const ctx = { Execution: { Name: 'exec-1' }, Map: { Item: { Index: 3 } } };

const ok = (expr: string) => evaluateIntrinsic(expr, input, ctx);

function failure(expr: string): AslError {
  try {
    ok(expr);
  } catch (e) {
    if (e instanceof AslError) return e;
    throw e;
  }
  throw new Error(`expected ${expr} to fail`);
}

describe('evaluateIntrinsic: success', () => {
  it.each<[string, unknown]>([
    ["States.Format('Hello, my name is {}.', $.name)", 'Hello, my name is Arnav.'],
    ['States.Format($.template, $.name)', 'Hello, my name is Arnav.'],
    ["States.Format('{} and {}', $.n, $$.Execution.Name)", '5 and exec-1'],
    ["States.Format('{}|{}|{}|{}', true, null, 1.5, $.obj)", 'true|null|1.5|{a=1, b=[1, 2]}'],
    ["States.Format('{}', $.arr)", '[1, 2, 3, 4, 5]'],
    ["States.Format('literal \\{\\} and {} it\\'s \\\\', 'x')", "literal {} and x it's \\"],
    ["States.Format('no placeholders')", 'no placeholders'],
    ['States.StringToJson($.str)', { k: [1, true] }],
    ["States.StringToJson('[1,2]')", [1, 2]],
    ['States.JsonToString($.obj)', '{"a":1,"b":[1,2]}'],
    ['States.JsonToString($.name)', '"Arnav"'],
    ["States.Array('Foo', 2020, $.obj, null, true)", ['Foo', 2020, { a: 1, b: [1, 2] }, null, true]],
    ['States.Array()', []],
    ['States.ArrayPartition($.arr, 2)', [[1, 2], [3, 4], [5]]],
    ['States.ArrayPartition($.arr, 10)', [[1, 2, 3, 4, 5]]],
    ['States.ArrayContains($.arr, 3)', true],
    ['States.ArrayContains($.arr, 9)', false],
    ['States.ArrayContains($.dup, $.obj)', false],
    ['States.ArrayContains(States.Array($.obj), $.obj)', true],
    ['States.ArrayRange(1, 9, 2)', [1, 3, 5, 7, 9]],
    ['States.ArrayRange(0, 3, 1)', [0, 1, 2, 3]],
    ['States.ArrayRange(5, 1, -2)', [5, 3, 1]],
    ['States.ArrayRange(1, 1000, 1)', Array.from({ length: 1000 }, (_, k) => k + 1)],
    ['States.ArrayGetItem($.arr, 0)', 1],
    ['States.ArrayGetItem($.arr, $$.Map.Item.Index)', 4],
    ['States.ArrayLength($.arr)', 5],
    ['States.ArrayLength(States.Array())', 0],
    ['States.ArrayUnique($.dup)', [1, 'a', { x: 1 }, [2], null]],
    ["States.Base64Encode('Data to encode')", 'RGF0YSB0byBlbmNvZGU='],
    ['States.Base64Decode($.b64)', 'Data to encode'],
    ["States.Base64Decode(States.Base64Encode('héllo ✓'))", 'héllo ✓'],
    ["States.Hash('input data', 'MD5')", createHash('md5').update('input data').digest('hex')],
    ["States.Hash('input data', 'SHA-1')", createHash('sha1').update('input data').digest('hex')],
    ["States.Hash('input data', 'SHA-256')", createHash('sha256').update('input data').digest('hex')],
    ["States.Hash('input data', 'SHA-384')", createHash('sha384').update('input data').digest('hex')],
    ["States.Hash('input data', 'SHA-512')", createHash('sha512').update('input data').digest('hex')],
    ['States.JsonMerge($.json1, $.json2, false)', { a: { a3: 1 }, b: 2, c: 3 }],
    ['States.MathAdd(111, -1)', 110],
    ['States.MathAdd($.n, $.f)', 8],
    ['States.MathAdd(1.4, -2.5)', -1],
    // Recorded against AWS (localstack test_math_add snapshot): each argument is rounded half up first.
    ['States.MathAdd(1.49, 1.5)', 3],
    ['States.MathAdd(1.5, 1.51)', 4],
    ['States.MathAdd(-1.49, -1.5)', -2],
    ['States.StringSplit($.csv, $.splitter)', ['This', 'is', 'a', 'test', 'string']],
    ["States.StringSplit('1,2,,3', ',')", ['1', '2', '3']],
    ["States.StringSplit('abc', '')", ['abc']],
    [
      "States.Format('{}.{}.{}', States.ArrayGetItem(States.StringSplit(States.ArrayGetItem(States.StringSplit($.arn, '/'), 2), '.'), 0), States.ArrayGetItem(States.StringSplit(States.ArrayGetItem(States.StringSplit($.arn, '/'), 2), '.'), 1), 'x')",
      '1.0.x',
    ],
    ['  States.ArrayLength( $.arr )  ', 5],
    ["States.ArrayLength($.dup[?(@ == 'a')])", 1],
  ])('%s', (expr, want) => {
    expect(ok(expr)).toEqual(want);
  });

  it('SHA-256 of a known string', () => {
    expect(ok("States.Hash('abc', 'SHA-256')")).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(ok("States.Hash('abc', 'MD5')")).toBe('900150983cd24fb0d6963f7d28e17f72');
  });

  it('MathRandom draws an integer in [start, end)', () => {
    const seen = new Set<unknown>();
    for (let k = 0; k < 200; k += 1) {
      const v = ok('States.MathRandom(1, 4)') as number;
      expect(Number.isInteger(v) && v >= 1 && v < 4).toBe(true);
      seen.add(v);
    }
    expect([...seen].sort()).toEqual([1, 2, 3]);
  });

  it('MathRandom with a seed is deterministic (java.util.Random)', () => {
    const a = ok('States.MathRandom(0, 100, 42)');
    expect(ok('States.MathRandom(0, 100, 42)')).toBe(a);
    // Values printed by java.util.Random on a JDK: new Random(seed).nextInt(bound).
    expect(a).toBe(30); // seed 42, bound 100
    expect(ok('States.MathRandom(10, 20, 1)')).toBe(10 + 5); // seed 1, bound 10
    expect(ok('States.MathRandom(0, 16, 7)')).toBe(11); // seed 7, bound 16 (power of two)
    expect(ok('States.MathRandom(-500, 500, -5)')).toBe(-500 + 411); // seed -5, bound 1000
  });

  it('UUID is a v4 UUID, different each call', () => {
    const a = ok('States.UUID()') as string;
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ok('States.UUID()')).not.toBe(a);
  });
});

describe('evaluateIntrinsic: States.IntrinsicFailure', () => {
  it.each([
    "States.Format('{} {}', 'one')",
    "States.Format('{}', 'one', 'two')",
    'States.Format($.n)',
    'States.Format($.missing)',
    'States.StringToJson($.n)',
    "States.StringToJson('{bad')",
    'States.JsonToString($.missing)',
    'States.ArrayPartition($.name, 2)',
    'States.ArrayPartition($.arr, 0)',
    'States.ArrayPartition($.arr, 1.5)',
    'States.ArrayContains($.obj, 1)',
    'States.ArrayRange(1, 1001, 1)',
    'States.ArrayRange(1, 5, 0)',
    "States.ArrayRange('1', 5, 1)",
    'States.ArrayRange(1.5, 5, 1)',
    'States.ArrayGetItem($.arr, 5)',
    'States.ArrayGetItem($.arr, -1)',
    "States.ArrayGetItem($.arr, '1')",
    'States.ArrayLength($.obj)',
    'States.ArrayUnique($.name)',
    'States.Base64Encode($.n)',
    "States.Base64Decode('not base64!')",
    'States.Base64Decode($.arr)',
    "States.Hash('x', 'SHA-2')",
    "States.Hash($.obj, 'MD5')",
    'States.JsonMerge($.json1, $.json2, true)',
    'States.JsonMerge($.json1, $.arr, false)',
    "States.JsonMerge($.json1, $.json2, 'false')",
    'States.MathRandom(5, 5)',
    "States.MathRandom('a', 5)",
    "States.MathAdd('1', 2)",
    'States.MathAdd(2147483648, 1)',
    'States.StringSplit($.n, \',\')',
    'States.StringSplit($.csv, 1)',
    'States.ArrayLength($.nothing.here)',
  ])('%s', (expr) => {
    expect(failure(expr).error).toBe('States.IntrinsicFailure');
  });

  it('a 10 000+ character input to Base64Encode fails', () => {
    expect(() => evaluateIntrinsic('States.Base64Encode($.s)', { s: 'x'.repeat(10_001) }, {})).toThrowError(/IntrinsicFailure/);
    expect(evaluateIntrinsic('States.Base64Encode($.s)', { s: 'x'.repeat(10_000) }, {})).toHaveLength(13_336);
  });

  it.each(['States.Nope()', 'States.UUID(1)', 'States.Array(', 'nope'])('a syntax error fails too: %s', (expr) => {
    expect(failure(expr).error).toBe('States.IntrinsicFailure');
  });
});

describe('parseIntrinsic', () => {
  it('returns the call tree', () => {
    expect(parseIntrinsic("States.Format('a\\{{}\\}', $.x, States.MathAdd(1, -2.5), true, null)")).toEqual({
      name: 'States.Format',
      args: [
        { kind: 'literal', value: 'a{{}}', raw: 'a\\{{}\\}' },
        { kind: 'path', path: '$.x' },
        { kind: 'call', call: { name: 'States.MathAdd', args: [{ kind: 'literal', value: 1 }, { kind: 'literal', value: -2.5 }] } },
        { kind: 'literal', value: true },
        { kind: 'literal', value: null },
      ],
    });
    expect(parseIntrinsic("States.ArrayLength($['a, b'][?(@.x == ')')])")!.args).toEqual([{ kind: 'path', path: "$['a, b'][?(@.x == ')')]" }]);
  });

  it.each([
    'States.Format()', // needs a template
    'States.UUID(1)',
    'States.ArrayRange(1, 2)',
    'States.MathRandom(1)',
    'States.MathRandom(1, 2, 3, 4)',
    'States.JsonMerge($.a, $.b)',
    'States.Unknown($.a)',
    'states.Array()',
    'States.Array(',
    'States.Array(1,)',
    'States.Array(1 2)',
    'States.Array() x',
    "States.Array('unterminated)",
    "States.Array('bad \\n escape')",
    'States.Array($.)',
    'States.Array(abc)',
    'States.Array(1abc)',
    'States.Array(trueish)',
  ])('rejects %s', (expr) => {
    expect(parseIntrinsic(expr)).toBeNull();
  });

  it('accepts ten levels of nesting, not eleven', () => {
    const nest = (n: number) => 'States.Array('.repeat(n) + ')'.repeat(n);
    expect(parseIntrinsic(nest(10))).not.toBeNull();
    expect(parseIntrinsic(nest(11))).toBeNull();
    expect(evaluateIntrinsic(nest(3), {}, {})).toEqual([[[]]]);
  });

  it('isIntrinsicCall recognises the call shape', () => {
    expect(isIntrinsicCall('States.Array(1)')).toBe(true);
    expect(isIntrinsicCall('States.Nope()')).toBe(true);
    expect(isIntrinsicCall('$.States.Array')).toBe(false);
    expect(isIntrinsicCall('$')).toBe(false);
  });
});
