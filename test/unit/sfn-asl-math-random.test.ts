import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringMatches } from '../../src/sfn/asl/choice-rules.js';
import { AslError } from '../../src/sfn/asl/errors.js';
import { evaluateIntrinsic } from '../../src/sfn/asl/intrinsics.js';

const ok = (expr: string) => evaluateIntrinsic(expr, {}, {});

/** The AslError `expr` fails with (undefined when it does not fail). */
const failure = (expr: string): AslError | undefined => {
  try { ok(expr); } catch (e) { if (e instanceof AslError) return e; throw e; }
  return undefined;
};

describe('States.MathRandom: every range of two 32-bit integers, deterministic per seed', () => {
  it('a start or end outside the 32-bit range is refused at once (before: an endless loop at 100 % CPU)', () => {
    const t = performance.now();
    expect(failure('States.MathRandom(0, 3000000000, 7)')).toMatchObject({
      error: 'States.IntrinsicFailure', cause: 'Invalid arguments in States.MathRandom: 3000000000 is outside the 32-bit integer range',
    });
    expect(failure('States.MathRandom(-3000000000, 0)')?.error).toBe('States.IntrinsicFailure');
    expect(failure('States.MathRandom(0, 10, 1e20)')?.cause).toContain('outside the 64-bit integer range');
    expect(performance.now() - t).toBeLessThan(1000);
  });

  // Values printed by OpenJDK 17: new Random(seed).nextInt(end - start) + start while the width fits an
  // int, new Random(seed).nextInt(start, end) past it.
  it.each([
    ['States.MathRandom(-2147483648, 2147483647, 7)', -1156638823],
    ['States.MathRandom(-2147483648, 2147483647, 42)', -1170105035],
    ['States.MathRandom(-2147483648, 2147483647, -5)', 1156638822],
    ['States.MathRandom(-2147483648, 2147483647, 0)', -1155484576],
    ['States.MathRandom(-2147483648, 2147483647, 123456789012)', 59424925],
    ['States.MathRandom(-1, 2147483647, 7)', 990844824],
    ['States.MathRandom(-1, 2147483647, -5)', 1156638821],
    ['States.MathRandom(0, 2147483647, 7)', 1569164236],
    ['States.MathRandom(0, 1073741824, 7)', 784582118],
    ['States.MathRandom(0, 1000, 7)', 236],
    ['States.MathRandom(0, 1000, 123456789012)', 462],
  ])('%s = %i, as java.util.Random draws it', (expr, value) => {
    expect(ok(expr)).toBe(value);
    expect(ok(expr)).toBe(value);
  });

  it('wide ranges: every seed gives a value in range, over the whole range', () => {
    let below = 0;
    // Neighbouring seeds start java.util.Random alike, so spread them out.
    for (let i = 0; i < 2000; i += 1) {
      const v = ok(`States.MathRandom(-2000000000, 2000000000, ${i * 1_000_000_007})`) as number;
      expect(Number.isInteger(v) && v >= -2000000000 && v < 2000000000).toBe(true);
      if (v < 0) below += 1;
    }
    expect(below).toBeGreaterThan(800);
    expect(below).toBeLessThan(1200);
  });

  it('without a seed: in range for the widest range', () => {
    for (let i = 0; i < 200; i += 1) {
      const v = ok('States.MathRandom(-2147483648, 2147483647)') as number;
      expect(Number.isInteger(v) && v >= -2147483648 && v < 2147483647).toBe(true);
    }
  });
});

/** The regular expression StringMatches used to build: the reference for small cases. */
function byRegex(value: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i]!;
    if (ch === '\\' && (pattern[i + 1] === '*' || pattern[i + 1] === '\\')) re += `\\${pattern[++i]}`;
    else if (ch === '*') re += '.*';
    else re += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(value);
}

describe('StringMatches without backtracking', () => {
  it('agrees with the regular expression it replaces', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '*', '\\', '.'), maxLength: 10 });
    fc.assert(fc.property(text, text, (value, pattern) => stringMatches(value, pattern) === byRegex(value, pattern)), { seed: 12, numRuns: 3000 });
  });
});
