import { createHash, randomUUID } from 'node:crypto';
import type { Budget } from './bounds.js';
import { AslError } from './errors.js';
import type { IntrinsicName } from './intrinsic-parser.js';
import { isObject } from './json-path.js';
import { jsonQuote, type JsonStyle, writeJson } from './json-text.js';
import { seededInt } from './seeded-random.js';

/** An evaluated argument; `raw` is a string literal's text with brace escapes kept (States.Format). */
export interface ArgValue {
  value: unknown;
  raw?: string;
}

const MAX_ARRAY = 1000;
const MAX_STRING = 10_000;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const HASH_ALGORITHMS: Record<string, string> = {
  MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512',
};

function fail(name: string, why: string): never {
  throw new AslError('States.IntrinsicFailure', `Invalid arguments in ${name}: ${why}`);
}

const describe = (v: unknown) => jsonQuote(v);

function str(name: string, v: unknown, what = 'a string'): string {
  return typeof v === 'string' ? v : fail(name, `expected ${what}, got ${describe(v)}`);
}

function arr(name: string, v: unknown): unknown[] {
  return Array.isArray(v) ? v : fail(name, `expected an array, got ${describe(v)}`);
}

/** A number rounded as Java's Math.round does (AWS rounds non-integer arguments). */
function int(name: string, v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : fail(name, `expected a number, got ${describe(v)}`);
}

function exactInt(name: string, v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) ? v : fail(name, `expected an integer, got ${describe(v)}`);
}

/** The text of `v` in `style`, every character counted by `budget` (so it stops when too large). */
function textOf(v: unknown, style: JsonStyle, budget: Budget): string {
  const pieces: string[] = [];
  writeJson(v, style, (p) => {
    budget.chars(p.length);
    pieces.push(p);
  });
  return pieces.join('');
}

/** JSON with sorted keys: equal JSON values give equal keys. */
const canonical = (v: unknown, budget: Budget): string => textOf(v, 'sorted', budget);

/** States.Format: non-string values print as AWS's Java runtime prints them (`{a=1, b=[x, y]}`). */
function format(name: string, args: ArgValue[], budget: Budget): string {
  const template = args[0]!.raw ?? str(name, args[0]!.value, 'a template string');
  const values = args.slice(1).map((a) => a.value);
  const out: string[] = [];
  let used = 0;
  let literal = '';
  for (let i = 0; i < template.length; i += 1) {
    const ch = template[i]!;
    if (ch === '\\' && i + 1 < template.length && '{}\\'.includes(template[i + 1]!)) {
      literal += template[++i];
    } else if (ch === '{' && template[i + 1] === '}') {
      if (used >= values.length) fail(name, 'more {} placeholders than arguments');
      out.push(literal, textOf(values[used++], 'java', budget));
      literal = '';
      i += 1;
    } else {
      literal += ch;
    }
  }
  if (used !== values.length) fail(name, `${values.length} arguments for ${used} {} placeholders`);
  out.push(literal);
  return out.join('');
}

function range(name: string, start: number, end: number, step: number): number[] {
  if (step === 0) fail(name, 'step must not be 0');
  const count = Math.floor((end - start) / step) + 1;
  if (count > MAX_ARRAY) fail(name, `the range has ${count} elements, more than ${MAX_ARRAY}`);
  return Array.from({ length: Math.max(0, count) }, (_, k) => start + k * step);
}

function checkLength(name: string, s: string): string {
  return s.length <= MAX_STRING ? s : fail(name, `the input is longer than ${MAX_STRING} characters`);
}

function base64Decode(name: string, s: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) fail(name, `not Base64: ${describe(s)}`);
  return Buffer.from(s, 'base64').toString('utf8');
}

/** AWS's math intrinsics take Java `int`s. */
function int32(name: string, v: number): number {
  return v >= INT32_MIN && v <= INT32_MAX ? v : fail(name, `${v} is outside the 32-bit integer range`);
}

/** A MathRandom seed: a Java `long`. */
function seed(name: string, v: unknown): bigint {
  const n = int(name, v);
  return n >= -(2 ** 63) && n < 2 ** 63 ? BigInt(n) : fail(name, `the seed ${n} is outside the 64-bit integer range`);
}

/**
 * Applies intrinsic `name` to evaluated arguments (their count was checked by the parser). The work
 * it does on large values counts against `budget`; the caller counts the result it returns.
 */
export function applyIntrinsic(name: IntrinsicName, args: ArgValue[], budget: Budget): unknown {
  const v = args.map((a) => a.value);
  switch (name) {
    case 'States.Format':
      return format(name, args, budget);
    case 'States.StringToJson': {
      const s = str(name, v[0]);
      // AWS: the empty string parses to null.
      if (s === '') return null;
      try {
        return JSON.parse(s);
      } catch {
        return fail(name, `not JSON: ${describe(s)}`);
      }
    }
    case 'States.JsonToString':
      return textOf(v[0], 'json', budget);
    case 'States.Array':
      return v;
    case 'States.ArrayPartition': {
      const a = arr(name, v[0]);
      const size = exactInt(name, v[1]);
      if (size <= 0) fail(name, `chunk size must be positive, got ${size}`);
      const out: unknown[][] = [];
      for (let k = 0; k < a.length; k += size) out.push(a.slice(k, k + size));
      return out;
    }
    case 'States.ArrayContains': {
      const key = canonical(v[1], budget);
      return arr(name, v[0]).some((e) => canonical(e, budget) === key);
    }
    case 'States.ArrayRange':
      return range(name, exactInt(name, v[0]), exactInt(name, v[1]), exactInt(name, v[2]));
    case 'States.ArrayGetItem': {
      const a = arr(name, v[0]);
      const k = exactInt(name, v[1]);
      return k >= 0 && k < a.length ? a[k] : fail(name, `index ${k} is out of bounds for an array of ${a.length}`);
    }
    case 'States.ArrayLength':
      return arr(name, v[0]).length;
    case 'States.ArrayUnique': {
      const seen = new Set<string>();
      return arr(name, v[0]).filter((e) => {
        const key = canonical(e, budget);
        return seen.has(key) ? false : (seen.add(key), true);
      });
    }
    case 'States.Base64Encode':
      return Buffer.from(checkLength(name, str(name, v[0])), 'utf8').toString('base64');
    case 'States.Base64Decode':
      return base64Decode(name, checkLength(name, str(name, v[0])));
    case 'States.Hash': {
      const data = checkLength(name, str(name, v[0]));
      const alg = HASH_ALGORITHMS[str(name, v[1])] ?? fail(name, `unknown hash algorithm ${describe(v[1])}`);
      return createHash(alg).update(data, 'utf8').digest('hex');
    }
    case 'States.JsonMerge': {
      if (!isObject(v[0]) || !isObject(v[1])) fail(name, 'both values to merge must be JSON objects');
      if (v[2] !== false) fail(name, 'only shallow merging is supported: the third argument must be false');
      return { ...(v[0] as object), ...(v[1] as object) };
    }
    case 'States.MathRandom': {
      const start = int32(name, int(name, v[0]));
      const end = int32(name, int(name, v[1]));
      if (end <= start) fail(name, `the end ${end} must be greater than the start ${start}`);
      if (v.length === 3) return seededInt(seed(name, v[2]), start, end);
      return start + Math.floor(Math.random() * (end - start));
    }
    case 'States.MathAdd':
      return int32(name, int(name, v[0])) + int32(name, int(name, v[1]));
    case 'States.StringSplit': {
      const s = str(name, v[0]);
      const delims = str(name, v[1]);
      if (delims === '') return s === '' ? [] : [s];
      const isDelim = new Set(delims);
      const parts: string[] = [];
      let cur = '';
      for (const ch of s) {
        if (isDelim.has(ch)) {
          if (cur !== '') parts.push(cur);
          cur = '';
        } else cur += ch;
      }
      if (cur !== '') parts.push(cur);
      return parts;
    }
    case 'States.UUID':
      return randomUUID();
  }
}
