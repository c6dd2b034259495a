import jsonata from 'jsonata';
import { createHash, randomUUID } from 'node:crypto';
import { seededDouble } from './seeded-random.js';

/**
 * The functions AWS Step Functions adds to JSONata 2.0.6 (and the one it takes away, `$eval`), as
 * bindings for one evaluation. `$now` and `$millis` read the step's clock (`now`), not the host's,
 * so an evaluation is a function of the execution's own time (simulated clocks included).
 */

const HASH_ALGORITHMS: Record<string, string> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/** A failure of one of these functions: the evaluator reports its message like a JSONata error. */
export class StepFunctionsJsonataError extends Error {}

function fail(message: string): never {
  throw new StepFunctionsJsonataError(message);
}

function partition(array: unknown, size: unknown): unknown[][] {
  if (!Array.isArray(array)) fail('The first argument of $partition must be an array');
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) fail('The second argument of $partition must be a positive integer');
  const out: unknown[][] = [];
  for (let i = 0; i < array.length; i += size) out.push(array.slice(i, i + size));
  return out;
}

/** AWS: at most 1,000 items, as States.ArrayRange. */
const MAX_RANGE = 1000;

function range(start: unknown, end: unknown, step: unknown): number[] {
  for (const v of [start, end, step]) if (typeof v !== 'number' || !Number.isInteger(v)) fail('The arguments of $range must be integers');
  const [a, b, s] = [start as number, end as number, step as number];
  if (s === 0) fail('The step of $range cannot be 0');
  const out: number[] = [];
  for (let v = a; s > 0 ? v <= b : v >= b; v += s) {
    if (out.length >= MAX_RANGE) fail(`$range produces more than ${MAX_RANGE} items`);
    out.push(v);
  }
  return out;
}

function hash(data: unknown, algorithm: unknown): string {
  if (typeof data !== 'string') fail('The first argument of $hash must be a string');
  const alg = typeof algorithm === 'string' ? HASH_ALGORITHMS[algorithm] : undefined;
  if (alg === undefined) fail(`The hash algorithm must be one of ${Object.keys(HASH_ALGORITHMS).join(', ')}`);
  return createHash(alg).update(data, 'utf8').digest('hex');
}

function random(seed?: unknown): number {
  if (seed === undefined) return Math.random();
  if (typeof seed !== 'number' || !Number.isInteger(seed)) fail('The seed of $random must be an integer');
  return seededDouble(BigInt(seed));
}

function parse(text: unknown): unknown {
  if (typeof text !== 'string') fail('The argument of $parse must be a string');
  try {
    return JSON.parse(text);
  } catch {
    return fail('The argument of $parse is not valid JSON');
  }
}

/** JSONata's own $fromMillis, for $now with a picture. */
const fromMillis = jsonata('$fromMillis($t, $p, $z)');

/** The bindings AWS adds, for an evaluation at epoch ms `now`. */
export function stepFunctionsBindings(now: number): Record<string, unknown> {
  return {
    partition, range, hash, random, uuid: () => randomUUID(), parse,
    eval: () => fail('The $eval function is not supported: use $parse'),
    millis: () => now,
    // $now([picture [, timezone]]) formats the step's time as JSONata's own $fromMillis does.
    now: (picture?: unknown, timezone?: unknown) => {
      if (picture === undefined && timezone === undefined) return new Date(now).toISOString();
      return fromMillis.evaluate(null, { t: now, p: picture, z: timezone });
    },
  };
}
