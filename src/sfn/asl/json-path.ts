import { AslError } from './errors.js';

/**
 * The JSONPath subset the States Language uses (Jayway semantics, as AWS runs it): `$` / `$$` roots,
 * `.name`, `['name']`, `[n]` (negative from the end), `[*]`/`.*`, `..` deep scan, `[a:b:c]` slices,
 * `[0,2]`/`['a','b']` unions and `[?(@.x op literal)]` filters.
 */
export type PathSegment =
  | { kind: 'root'; context: boolean }
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  /** Expands the current nodes to themselves and all their descendants; the next segment applies to each. */
  | { kind: 'deep' }
  | { kind: 'slice'; start?: number; end?: number; step: number }
  | { kind: 'union'; keys: (string | number)[] }
  | { kind: 'filter'; left: FilterOperand; op?: FilterOp; right?: FilterOperand };

export type FilterOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
/** `@…` (a relative path of field/index segments) or a literal. */
export type FilterOperand = { at: PathSegment[] } | { value: string | number | boolean | null };

/** A path that names nothing in the data it is read from. */
export class PathNotFoundError extends Error {
  override readonly name = 'PathNotFoundError';
  constructor(readonly path: string, message = `No results for path: ${path}`) {
    super(message);
  }
}

const cache = new Map<string, PathSegment[] | null>();
const CACHE_LIMIT = 2000;

/** The segments of `path` (the first is always the root), or null when it is not a valid path. */
export function parsePath(path: string): PathSegment[] | null {
  let segs = cache.get(path);
  if (segs === undefined) {
    segs = new PathParser(path).parse();
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(path, segs);
  }
  return segs === null ? null : [...segs];
}

/** A valid path that names a single node: only `.name`, `['name']` and non-negative `[n]` segments. */
export function isReferencePath(path: string): boolean {
  const segs = parsePath(path);
  return segs !== null && segs.slice(1).every((s) => s.kind === 'field' || (s.kind === 'index' && s.index >= 0));
}

/** Definite paths (fields and indexes only) yield one value; every other path yields an array of matches. */
function isDefinite(segs: PathSegment[]): boolean {
  return segs.slice(1).every((s) => s.kind === 'field' || s.kind === 'index');
}

function segmentsOf(path: string): PathSegment[] {
  const segs = parsePath(path);
  if (segs === null) throw new PathNotFoundError(path, `Invalid path: ${path}`);
  return segs;
}

/**
 * Reads `path` from `data` (`$$…` from `context`). A definite path returns its single value and
 * throws PathNotFoundError when it matches nothing; any other path returns the array of its matches.
 */
export function readPath(data: unknown, path: string, context?: unknown): unknown {
  const segs = segmentsOf(path);
  const nodes = select(segs, data, context);
  if (!isDefinite(segs)) return nodes;
  if (nodes.length === 0) throw new PathNotFoundError(path, `No results for path: ${canonicalPath(path)}`);
  return nodes[0];
}

/** Does `path` match at least one node? */
export function hasPath(data: unknown, path: string, context?: unknown): boolean {
  const segs = parsePath(path);
  return segs !== null && select(segs, data, context).length > 0;
}

/** `$.a.b[0]` → `$['a']['b'][0]`, the form AWS quotes in error causes (other segments kept as given). */
export function canonicalPath(path: string): string {
  const segs = parsePath(path);
  if (segs === null) return path;
  let out = '';
  for (const s of segs) {
    if (s.kind === 'root') out += s.context ? '$$' : '$';
    else if (s.kind === 'field') out += `['${s.name}']`;
    else if (s.kind === 'index') out += `[${s.index}]`;
    else return path;
  }
  return out;
}

/**
 * ResultPath semantics: a new value with `value` stored at the reference path `path` in `target`
 * (never mutates `target`). `$` replaces; missing objects along the way are created; an existing
 * non-object where an object is needed → States.ResultPathMatchFailure.
 */
export function writePath(target: unknown, path: string, value: unknown): unknown {
  const segs = parsePath(path);
  if (segs === null || !isReferencePath(path) || (segs[0] as { context: boolean }).context) {
    throw new AslError('States.ResultPathMatchFailure', `Invalid ResultPath: ${path}`);
  }
  const fail = (): never => {
    throw new AslError('States.ResultPathMatchFailure', `Unable to apply ReferencePath ${path} to input ${JSON.stringify(target) ?? 'undefined'}`);
  };
  const set = (node: unknown, i: number): unknown => {
    if (i === segs.length) return value;
    const s = segs[i]!;
    if (s.kind === 'field') {
      if (node === undefined) node = {};
      if (!isObject(node)) return fail();
      return { ...node, [s.name]: set(Object.hasOwn(node, s.name) ? node[s.name] : undefined, i + 1) };
    }
    const idx = (s as { index: number }).index;
    if (!Array.isArray(node) || idx > node.length) return fail();
    const copy = [...(node as unknown[])];
    copy[idx] = set(copy[idx], i + 1);
    return copy;
  };
  return set(target, 1);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function children(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (isObject(node)) return Object.values(node);
  return [];
}

function descendantsOrSelf(node: unknown, out: unknown[]): void {
  out.push(node);
  for (const c of children(node)) descendantsOrSelf(c, out);
}

function field(node: unknown, name: string, out: unknown[]): void {
  if (isObject(node) && Object.hasOwn(node, name)) out.push(node[name]);
}

function index(node: unknown, i: number, out: unknown[]): void {
  if (!Array.isArray(node)) return;
  const k = i < 0 ? node.length + i : i;
  if (k >= 0 && k < node.length) out.push(node[k]);
}

function slice(node: unknown[], s: { start?: number; end?: number; step: number }): unknown[] {
  const len = node.length;
  const norm = (v: number | undefined, dflt: number) => (v === undefined ? dflt : v < 0 ? Math.max(0, len + v) : Math.min(len, v));
  const out: unknown[] = [];
  for (let k = norm(s.start, 0), end = norm(s.end, len); k < end; k += s.step) out.push(node[k]);
  return out;
}

function operandValue(o: FilterOperand, node: unknown): { found: boolean; value?: unknown } {
  if ('value' in o) return { found: true, value: o.value };
  const r = select([{ kind: 'root', context: false }, ...o.at], node, undefined);
  return r.length > 0 ? { found: true, value: r[0] } : { found: false };
}

function compare(op: FilterOp, a: unknown, b: unknown): boolean {
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  const comparable = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function matchesFilter(s: Extract<PathSegment, { kind: 'filter' }>, node: unknown): boolean {
  const left = operandValue(s.left, node);
  if (s.op === undefined) return left.found;
  const right = operandValue(s.right!, node);
  // A missing operand equals nothing, so it is "not equal" to anything.
  if (!left.found || !right.found) return s.op === '!=';
  return compare(s.op, left.value, right.value);
}

function select(segs: PathSegment[], data: unknown, context: unknown): unknown[] {
  let nodes: unknown[] = [];
  for (const s of segs) {
    const out: unknown[] = [];
    switch (s.kind) {
      case 'root': out.push(s.context ? context : data); break;
      case 'field': for (const n of nodes) field(n, s.name, out); break;
      case 'index': for (const n of nodes) index(n, s.index, out); break;
      case 'wildcard': for (const n of nodes) out.push(...children(n)); break;
      case 'deep': for (const n of nodes) descendantsOrSelf(n, out); break;
      case 'slice': for (const n of nodes) if (Array.isArray(n)) out.push(...slice(n, s)); break;
      case 'union':
        for (const n of nodes) for (const k of s.keys) typeof k === 'number' ? index(n, k, out) : field(n, k, out);
        break;
      case 'filter':
        for (const n of nodes) {
          if (Array.isArray(n)) out.push(...n.filter((e) => matchesFilter(s, e)));
          else if (isObject(n) && matchesFilter(s, n)) out.push(n);
        }
        break;
    }
    nodes = out;
  }
  return nodes;
}

const NAME_STOP = new Set(['.', '[', ']', '(', ')', ',', "'", '"', '*', '?', ' ', '\t', '\n', '\r', '=', '!', '<', '>', '&', '|']);

class PathParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): PathSegment[] | null {
    if (this.s[0] !== '$') return null;
    const context = this.s[1] === '$';
    this.i = context ? 2 : 1;
    const segs = this.segments();
    if (segs === null || this.i !== this.s.length) return null;
    return [{ kind: 'root', context }, ...segs];
  }

  /** Segments until the end of the input (or, relative inside a filter, until a non-segment char). */
  segments(relative = false): PathSegment[] | null {
    const segs: PathSegment[] = [];
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '.' && this.s[this.i + 1] === '.') {
        if (relative) return null;
        this.i += 2;
        segs.push({ kind: 'deep' });
        if (this.s[this.i] === '[') continue;
        const seg = this.dotted();
        if (seg === null) return null;
        segs.push(seg);
      } else if (c === '.') {
        this.i += 1;
        const seg = this.dotted();
        if (seg === null || (relative && seg.kind !== 'field')) return null;
        segs.push(seg);
      } else if (c === '[') {
        this.i += 1;
        const seg = this.bracket();
        if (seg === null || (relative && seg.kind !== 'field' && seg.kind !== 'index')) return null;
        segs.push(seg);
      } else if (relative) {
        return segs;
      } else {
        return null;
      }
    }
    return segs;
  }

  private dotted(): PathSegment | null {
    if (this.s[this.i] === '*') {
      this.i += 1;
      return { kind: 'wildcard' };
    }
    const start = this.i;
    while (this.i < this.s.length && !NAME_STOP.has(this.s[this.i]!)) this.i += 1;
    return this.i > start ? { kind: 'field', name: this.s.slice(start, this.i) } : null;
  }

  private skipSpaces(): void {
    while (this.s[this.i] === ' ') this.i += 1;
  }

  private expect(ch: string): boolean {
    this.skipSpaces();
    if (this.s[this.i] !== ch) return false;
    this.i += 1;
    return true;
  }

  private bracket(): PathSegment | null {
    this.skipSpaces();
    const c = this.s[this.i];
    if (c === '*') {
      this.i += 1;
      return this.expect(']') ? { kind: 'wildcard' } : null;
    }
    if (c === '?') return this.filter();
    if (c === "'" || c === '"') {
      const names: string[] = [];
      do {
        this.skipSpaces();
        const name = this.quoted();
        if (name === null) return null;
        names.push(name);
      } while (this.expect(','));
      if (!this.expect(']')) return null;
      return names.length === 1 ? { kind: 'field', name: names[0]! } : { kind: 'union', keys: names };
    }
    return this.numeric();
  }

  private numeric(): PathSegment | null {
    const first = this.int();
    this.skipSpaces();
    if (this.s[this.i] === ':') {
      this.i += 1;
      const end = this.int();
      let step = 1;
      this.skipSpaces();
      if (this.s[this.i] === ':') {
        this.i += 1;
        const st = this.int();
        if (st !== undefined) step = st;
      }
      if (step <= 0 || !this.expect(']')) return null;
      return { kind: 'slice', start: first, end, step };
    }
    if (first === undefined) return null;
    const keys: number[] = [first];
    while (this.expect(',')) {
      const k = this.int();
      if (k === undefined) return null;
      keys.push(k);
    }
    if (!this.expect(']')) return null;
    return keys.length === 1 ? { kind: 'index', index: first } : { kind: 'union', keys };
  }

  private int(): number | undefined {
    this.skipSpaces();
    const m = /^-?\d+/.exec(this.s.slice(this.i));
    if (m === null) return undefined;
    this.i += m[0].length;
    return Number(m[0]);
  }

  /** A '…' or "…" string with backslash escapes; the cursor is on the opening quote. */
  quoted(): string | null {
    const q = this.s[this.i];
    if (q !== "'" && q !== '"') return null;
    let out = '';
    for (this.i += 1; this.i < this.s.length; this.i += 1) {
      const ch = this.s[this.i]!;
      if (ch === '\\' && this.i + 1 < this.s.length) out += this.s[++this.i];
      else if (ch === q) {
        this.i += 1;
        return out;
      } else out += ch;
    }
    return null;
  }

  private filter(): PathSegment | null {
    this.i += 1; // '?'
    if (!this.expect('(')) return null;
    const left = this.operand();
    if (left === null) return null;
    this.skipSpaces();
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.s.slice(this.i));
    let seg: PathSegment;
    if (m === null) {
      if (!('at' in left)) return null;
      seg = { kind: 'filter', left };
    } else {
      this.i += m[1]!.length;
      const right = this.operand();
      if (right === null) return null;
      seg = { kind: 'filter', left, op: m[1] as FilterOp, right };
    }
    return this.expect(')') && this.expect(']') ? seg : null;
  }

  private operand(): FilterOperand | null {
    this.skipSpaces();
    const c = this.s[this.i];
    if (c === '@') {
      this.i += 1;
      const at = this.segments(true);
      return at === null ? null : { at };
    }
    if (c === "'" || c === '"') {
      const v = this.quoted();
      return v === null ? null : { value: v };
    }
    const rest = this.s.slice(this.i);
    const lit = /^(true|false|null)\b/.exec(rest);
    if (lit !== null) {
      this.i += lit[1]!.length;
      return { value: lit[1] === 'null' ? null : lit[1] === 'true' };
    }
    const num = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest);
    if (num === null) return null;
    this.i += num[0].length;
    return { value: Number(num[0]) };
  }
}
