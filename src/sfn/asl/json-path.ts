import { AslError } from './errors.js';
import { type FilterOp, type FilterOperand, PathParser, type PathSegment } from './json-path-parser.js';

export type { FilterOp, FilterOperand, PathSegment } from './json-path-parser.js';

/**
 * The JSONPath subset the States Language uses (Jayway semantics, as AWS runs it): `$` / `$$` roots,
 * `.name`, `['name']`, `[n]` (negative from the end), `[*]`/`.*`, `..` deep scan, `[a:b:c]` slices,
 * `[0,2]`/`['a','b']` unions and `[?(@.x op literal)]` filters.
 */

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
