import { createHash, randomUUID } from 'node:crypto';
import { AslError } from './errors.js';
import type { IntrinsicName } from './intrinsic-parser.js';
import { isObject } from './json-path.js';

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

const describe = (v: unknown) => JSON.stringify(v) ?? 'undefined';

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

/** JSON with sorted keys: equal JSON values give equal keys. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** How States.Format prints a non-string value (AWS runs on Java: objects print as `{a=1, b=[x, y]}`). */
function formatValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  if (isObject(v)) return `{${Object.entries(v).map(([k, x]) => `${k}=${formatValue(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

function format(name: string, args: ArgValue[]): string {
  const template = args[0]!.raw ?? str(name, args[0]!.value, 'a template string');
  const values = args.slice(1).map((a) => a.value);
  let out = '';
  let used = 0;
  for (let i = 0; i < template.length; i += 1) {
    const ch = template[i]!;
    if (ch === '\\' && i + 1 < template.length && '{}\\'.includes(template[i + 1]!)) {
      out += template[++i];
    } else if (ch === '{' && template[i + 1] === '}') {
      if (used >= values.length) fail(name, 'more {} placeholders than arguments');
      out += formatValue(values[used++]);
      i += 1;
    } else {
      out += ch;
    }
  }
  if (used !== values.length) fail(name, `${values.length} arguments for ${used} {} placeholders`);
  return out;
}

/** java.util.Random(seed).nextInt(bound): a deterministic draw per seed. */
function seededInt(seed: number, bound: number): number {
  const MULT = 0x5deece66dn;
  const MASK = (1n << 48n) - 1n;
  let s = (BigInt(seed) ^ MULT) & MASK;
  const next31 = (): number => {
    s = (s * MULT + 0xbn) & MASK;
    return Number(s >> 17n);
  };
  if ((bound & -bound) === bound) return Number((BigInt(bound) * BigInt(next31())) >> 31n);
  for (;;) {
    const bits = next31();
    const val = bits % bound;
    if (bits - val + (bound - 1) <= INT32_MAX) return val;
  }
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

function addInt32(name: string, a: number, b: number): number {
  for (const v of [a, b]) if (v < INT32_MIN || v > INT32_MAX) fail(name, `${v} is outside the 32-bit integer range`);
  return a + b;
}

/** Applies intrinsic `name` to evaluated arguments (their count was checked by the parser). */
export function applyIntrinsic(name: IntrinsicName, args: ArgValue[]): unknown {
  const v = args.map((a) => a.value);
  switch (name) {
    case 'States.Format':
      return format(name, args);
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
      return JSON.stringify(v[0]);
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
      const key = canonical(v[1]);
      return arr(name, v[0]).some((e) => canonical(e) === key);
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
        const key = canonical(e);
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
      const start = int(name, v[0]);
      const end = int(name, v[1]);
      if (end <= start) fail(name, `the end ${end} must be greater than the start ${start}`);
      const bound = end - start;
      if (v.length === 3) return start + seededInt(int(name, v[2]), bound);
      return start + Math.floor(Math.random() * bound);
    }
    case 'States.MathAdd':
      return addInt32(name, int(name, v[0]), int(name, v[1]));
    case 'States.StringSplit': {
      const s = str(name, v[0]);
      const delims = str(name, v[1]);
      if (delims === '') return s === '' ? [] : [s];
      const parts: string[] = [];
      let cur = '';
      for (const ch of s) {
        if (delims.includes(ch)) {
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
