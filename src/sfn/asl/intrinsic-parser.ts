import { parsePath } from './json-path.js';

/** The 18 intrinsic functions and how many arguments each takes ([min, max]). */
export const INTRINSIC_ARITY = {
  'States.Format': [1, Infinity],
  'States.StringToJson': [1, 1],
  'States.JsonToString': [1, 1],
  'States.Array': [0, Infinity],
  'States.ArrayPartition': [2, 2],
  'States.ArrayContains': [2, 2],
  'States.ArrayRange': [3, 3],
  'States.ArrayGetItem': [2, 2],
  'States.ArrayLength': [1, 1],
  'States.ArrayUnique': [1, 1],
  'States.Base64Encode': [1, 1],
  'States.Base64Decode': [1, 1],
  'States.Hash': [2, 2],
  'States.JsonMerge': [3, 3],
  'States.MathRandom': [2, 3],
  'States.MathAdd': [2, 2],
  'States.StringSplit': [2, 2],
  'States.UUID': [0, 0],
} as const satisfies Record<string, readonly [number, number]>;

export type IntrinsicName = keyof typeof INTRINSIC_ARITY;

export type IntrinsicArg =
  /** `raw` (strings only): the literal with `\{`, `\}` and `\\` still escaped, for States.Format. */
  | { kind: 'literal'; value: string | number | boolean | null; raw?: string }
  | { kind: 'path'; path: string }
  | { kind: 'call'; call: IntrinsicCall };

export interface IntrinsicCall {
  name: IntrinsicName;
  args: IntrinsicArg[];
}

/** Does `expr` have the shape of an intrinsic call (`States.Name(`…)? parseIntrinsic decides if it is valid. */
export function isIntrinsicCall(expr: string): boolean {
  return /^\s*States\.[A-Za-z0-9]+\s*\(/.test(expr);
}

/** The call `expr` denotes, or null when it is not a well-formed call of a known function with a valid argument count. */
export function parseIntrinsic(expr: string): IntrinsicCall | null {
  const p = new IntrinsicParser(expr);
  const call = p.call();
  p.spaces();
  return call !== null && p.atEnd() ? call : null;
}

const MAX_NESTING = 10;
const ESCAPABLE = new Set(["'", '{', '}', '\\']);

class IntrinsicParser {
  private i = 0;
  private depth = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.i === this.s.length;
  }

  spaces(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i += 1;
  }

  call(): IntrinsicCall | null {
    this.spaces();
    const m = /^States\.[A-Za-z0-9]+/.exec(this.s.slice(this.i));
    if (m === null || !Object.hasOwn(INTRINSIC_ARITY, m[0])) return null;
    const name = m[0] as IntrinsicName;
    this.i += m[0].length;
    this.spaces();
    if (this.s[this.i] !== '(' || ++this.depth > MAX_NESTING) return null;
    this.i += 1;
    const args: IntrinsicArg[] = [];
    this.spaces();
    if (this.s[this.i] === ')') {
      this.i += 1;
    } else {
      for (;;) {
        const arg = this.arg();
        if (arg === null) return null;
        args.push(arg);
        this.spaces();
        const c = this.s[this.i++];
        if (c === ')') break;
        if (c !== ',') return null;
      }
    }
    this.depth -= 1;
    const [min, max] = INTRINSIC_ARITY[name];
    return args.length >= min && args.length <= max ? { name, args } : null;
  }

  private arg(): IntrinsicArg | null {
    this.spaces();
    const c = this.s[this.i];
    if (c === "'") return this.string();
    if (c === '$') return this.path();
    const rest = this.s.slice(this.i);
    if (rest.startsWith('States.')) {
      const call = this.call();
      return call === null ? null : { kind: 'call', call };
    }
    const lit = /^(true|false|null)(?![\w$])/.exec(rest);
    if (lit !== null) {
      this.i += lit[1]!.length;
      return { kind: 'literal', value: lit[1] === 'null' ? null : lit[1] === 'true' };
    }
    const num = /^-?\d+(\.\d+)?([eE][+-]?\d+)?(?![\w.$])/.exec(rest);
    if (num === null) return null;
    this.i += num[0].length;
    return { kind: 'literal', value: Number(num[0]) };
  }

  private string(): IntrinsicArg | null {
    let value = '';
    let raw = '';
    for (this.i += 1; this.i < this.s.length; this.i += 1) {
      const ch = this.s[this.i]!;
      if (ch === '\\') {
        const next = this.s[this.i + 1];
        if (next === undefined || !ESCAPABLE.has(next)) return null;
        value += next;
        raw += next === "'" ? "'" : `\\${next}`;
        this.i += 1;
      } else if (ch === "'") {
        this.i += 1;
        return { kind: 'literal', value, raw };
      } else {
        value += ch;
        raw += ch;
      }
    }
    return null;
  }

  /** A path runs to the next top-level `,` or `)` (brackets and quotes inside it are skipped). */
  private path(): IntrinsicArg | null {
    const start = this.i;
    let bracket = 0;
    let quote: string | null = null;
    for (; this.i < this.s.length; this.i += 1) {
      const ch = this.s[this.i]!;
      if (quote !== null) {
        if (ch === '\\') this.i += 1;
        else if (ch === quote) quote = null;
      } else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '[') bracket += 1;
      else if (ch === ']') bracket -= 1;
      else if (bracket === 0 && (ch === ',' || ch === ')')) break;
    }
    const path = this.s.slice(start, this.i).trimEnd();
    return parsePath(path) === null ? null : { kind: 'path', path };
  }
}
