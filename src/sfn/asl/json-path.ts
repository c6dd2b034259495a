import { Budget } from './bounds.js';
import { AslError } from './errors.js';
import { jsonQuote } from './json-text.js';
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

/**
 * The workflow variables in scope travel with the context object a path is read with, under a
 * symbol key: every reader of `$$` paths (InputPath, Parameters, Choice, …) reads `$name` paths
 * too without a parameter of its own, and `$$` written out whole (JSON, msgpack, structured clone)
 * never shows them.
 */
const VARIABLES = Symbol('asl.variables');

/** `context` (a fresh object of the caller's) with the variables `vars` readable as `$name` paths. */
export function withVariables<T extends object>(context: T, vars: Record<string, unknown>): T {
  return Object.defineProperty(context, VARIABLES, { value: vars, enumerable: false });
}

function variablesOf(context: unknown): Record<string, unknown> {
  return (typeof context === 'object' && context !== null ? (context as { [VARIABLES]?: Record<string, unknown> })[VARIABLES] : undefined) ?? {};
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

/** Does `path` name one node of the data it reads (so its value is part of that data, not a new array)? */
export function isDefinitePath(path: string): boolean {
  const segs = parsePath(path);
  return segs !== null && isDefinite(segs);
}

/** The budget of one path evaluation on its own: past a bound it fails with States.Runtime. */
export function pathBudget(path: string): Budget {
  return Budget.start('States.Runtime', `the JSONPath '${path}'`);
}

function segmentsOf(path: string): PathSegment[] {
  const segs = parsePath(path);
  if (segs === null) throw new PathNotFoundError(path, `Invalid path: ${path}`);
  return segs;
}

/**
 * Reads `path` from `data` (`$$…` from `context`). A definite path returns its single value and
 * throws PathNotFoundError when it matches nothing; any other path returns the array of its matches,
 * which counts as produced data. The work is bounded by `budget` (by default one of its own).
 */
export function readPath(data: unknown, path: string, context?: unknown, budget: Budget = pathBudget(path)): unknown {
  const segs = segmentsOf(path);
  const nodes = select(segs, data, context, budget);
  if (!isDefinite(segs)) {
    budget.charge(nodes);
    return nodes;
  }
  if (nodes.length === 0) throw new PathNotFoundError(path, `No results for path: ${canonicalPath(path)}`);
  return nodes[0];
}

/** Does `path` match at least one node? */
export function hasPath(data: unknown, path: string, context?: unknown, budget: Budget = pathBudget(path)): boolean {
  const segs = parsePath(path);
  return segs !== null && select(segs, data, context, budget).length > 0;
}

/** `$.a.b[0]` → `$['a']['b'][0]`, the form AWS quotes in error causes (other segments kept as given). */
export function canonicalPath(path: string): string {
  const segs = parsePath(path);
  if (segs === null) return path;
  let out = '';
  for (const s of segs) {
    if (s.kind === 'root') out += s.context ? '$$' : `$${s.variable ?? ''}`;
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
    throw new AslError('States.ResultPathMatchFailure', `Unable to apply ReferencePath ${path} to input ${jsonQuote(target)}`);
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

/** Every child of `node` (array elements, object member values), in order. */
function eachChild(node: unknown, put: (v: unknown) => void): void {
  if (Array.isArray(node)) for (const c of node) put(c);
  else if (isObject(node)) for (const k of Object.keys(node)) put(node[k]);
}

/** `node` and all its descendants in document order (pre-order), without recursion. */
function descendantsOrSelf(node: unknown, put: (v: unknown) => void): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    put(n);
    if (Array.isArray(n)) for (let i = n.length - 1; i >= 0; i -= 1) stack.push(n[i]);
    else if (isObject(n)) {
      const keys = Object.keys(n);
      for (let i = keys.length - 1; i >= 0; i -= 1) stack.push(n[keys[i]!]);
    }
  }
}

function field(node: unknown, name: string, put: (v: unknown) => void): void {
  if (isObject(node) && Object.hasOwn(node, name)) put(node[name]);
}

function index(node: unknown, i: number, put: (v: unknown) => void): void {
  if (!Array.isArray(node)) return;
  const k = i < 0 ? node.length + i : i;
  if (k >= 0 && k < node.length) put(node[k]);
}

function slice(node: unknown[], s: { start?: number; end?: number; step: number }, put: (v: unknown) => void): void {
  const len = node.length;
  const norm = (v: number | undefined, dflt: number) => (v === undefined ? dflt : v < 0 ? Math.max(0, len + v) : Math.min(len, v));
  for (let k = norm(s.start, 0), end = norm(s.end, len); k < end; k += s.step) put(node[k]);
}

function operandValue(o: FilterOperand, node: unknown, budget: Budget): { found: boolean; value?: unknown } {
  if ('value' in o) return { found: true, value: o.value };
  const r = select([{ kind: 'root', context: false }, ...o.at], node, undefined, budget);
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

function matchesFilter(s: Extract<PathSegment, { kind: 'filter' }>, node: unknown, budget: Budget): boolean {
  const left = operandValue(s.left, node, budget);
  if (s.op === undefined) return left.found;
  const right = operandValue(s.right!, node, budget);
  // A missing operand equals nothing, so it is "not equal" to anything.
  if (!left.found || !right.found) return s.op === '!=';
  return compare(s.op, left.value, right.value);
}

/**
 * The nodes `segs` select; every node visited or produced counts one step of `budget`, counted after
 * each node's expansion (one expansion is bounded by the size of the data it reads).
 */
function select(segs: PathSegment[], data: unknown, context: unknown, budget: Budget): unknown[] {
  let nodes: unknown[] = [];
  for (const s of segs) {
    const out: unknown[] = [];
    const put = (v: unknown): void => {
      out.push(v);
    };
    if (s.kind === 'root') {
      if (s.variable === undefined) put(s.context ? context : data);
      else {
        const vars = variablesOf(context);
        if (!Object.hasOwn(vars, s.variable)) throw new PathNotFoundError(`$${s.variable}`, `Variable '$${s.variable}' is not defined`);
        put(vars[s.variable]);
      }
    }
    for (const n of s.kind === 'root' ? [] : nodes) {
      const before = out.length;
      switch (s.kind) {
        case 'field': field(n, s.name, put); break;
        case 'index': index(n, s.index, put); break;
        case 'wildcard': eachChild(n, put); break;
        case 'deep': descendantsOrSelf(n, put); break;
        case 'slice': if (Array.isArray(n)) slice(n, s, put); break;
        case 'union': for (const k of s.keys) typeof k === 'number' ? index(n, k, put) : field(n, k, put); break;
        case 'filter':
          if (Array.isArray(n)) {
            for (const e of n) if (matchesFilter(s, e, budget)) put(e);
            budget.step(n.length);
          } else if (isObject(n) && matchesFilter(s, n, budget)) put(n);
          break;
      }
      budget.step(1 + out.length - before);
    }
    nodes = out;
  }
  return nodes;
}
