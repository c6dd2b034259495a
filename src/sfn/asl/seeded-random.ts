/**
 * States.MathRandom with a seed: java.util.Random's sequence, so a draw is a pure function of its
 * seed and range (an execution rebuilt from history computes the same value again).
 */

const MULT = 0x5deece66dn;
const MASK = (1n << 48n) - 1n;
const INT32_MAX = 2147483647;
const TWO_31 = 2147483648;
/**
 * Each rejection draws again with a probability under 1/2, so more than this many draws in a row do
 * not happen: the cap makes the bound on the work visible, it never changes a result in practice.
 */
const MAX_DRAWS = 64;

/** new java.util.Random(seed): `next(bits)` as the JDK defines it (32 bits: a signed int). */
function javaRandom(seed: bigint): (bits: 31 | 32) => number {
  let s = (BigInt.asIntN(64, seed) ^ MULT) & MASK;
  return (bits) => {
    s = (s * MULT + 0xbn) & MASK;
    const v = Number(s >> BigInt(48 - bits));
    return bits === 32 ? v | 0 : v;
  };
}

/**
 * A draw in [start, end) for a seed, for any two 32-bit integers start < end. When the width fits
 * an `int` it is `start + new Random(seed).nextInt(end - start)`; wider (where Java's `int`
 * overflows) it is the JDK's `new Random(seed).nextInt(start, end)`: a width of exactly 2^31 takes
 * the low 31 bits of one draw, any other signed 32-bit draws until one falls in range.
 */
export function seededInt(seed: bigint, start: number, end: number): number {
  const next = javaRandom(seed);
  const bound = end - start;
  if (bound === TWO_31) return start + (next(32) & INT32_MAX);
  if (bound > INT32_MAX) {
    let r = next(32);
    for (let k = 1; (r < start || r >= end) && k < MAX_DRAWS; k += 1) r = next(32);
    return r >= start && r < end ? r : start + (((r % bound) + bound) % bound);
  }
  if ((bound & -bound) === bound) return start + Number((BigInt(bound) * BigInt(next(31))) >> 31n);
  let bits = next(31);
  for (let k = 1; bits - (bits % bound) + (bound - 1) > INT32_MAX && k < MAX_DRAWS; k += 1) bits = next(31);
  return start + (bits % bound);
}

/** `new java.util.Random(seed).nextDouble()`: a float in [0, 1), a pure function of the seed ($random(seed) in JSONata). */
export function seededDouble(seed: bigint): number {
  const next = javaRandom(seed);
  const hi = next(31) >>> 5; // next(26)
  const lo = next(31) >>> 4; // next(27)
  return (hi * 2 ** 27 + lo) * 2 ** -53;
}
