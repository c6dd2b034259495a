import { durationProblem } from './durations.js';
import { Fault } from './faults.js';

type Obj = Record<string, unknown>;

/** SWF's identifier rule (domains, type names, task lists, workflow/activity/timer ids). */
export function identifierProblem(s: string): string | undefined {
  if (s !== s.trim()) return 'must not start or end with whitespace';
  if (/[:/|\u0000-\u001f\u007f-\u009f]/.test(s)) return 'must not contain a colon, slash, vertical bar or control character';
  if (s === 'arn') return 'must not be the literal string "arn"';
  return undefined;
}

/** A lone (unpaired) surrogate: not Unicode, and no UTF-8 form, so it would collide with U+FFFD in storage. */
const LONE_SURROGATE = /\p{Cs}/u;

/** AWS requires valid Unicode in every string member; the constraint text of its ValidationException. */
export function unicodeProblem(s: string): string | undefined {
  return LONE_SURROGATE.test(s) ? 'Member must contain only valid Unicode characters (an unpaired surrogate is not one)' : undefined;
}

/**
 * The path of the first string holding a lone surrogate anywhere in `value`, for clients whose
 * encoder would silently turn it into U+FFFD (msgpack over NATS), so that two ids never become one.
 */
export function loneSurrogatePath(value: unknown, path = ''): string | undefined {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [v, p] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return p;
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push([x, `${p}.${i + 1}.member`]));
    } else if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Date)) {
      for (const [k, x] of Object.entries(v)) stack.push([x, p ? `${p}.${k}` : k]);
    }
  }
  return undefined;
}

interface StringRule {
  min?: number;
  max: number;
  identifier?: boolean;
  required?: boolean;
  oneOf?: readonly string[];
}

/**
 * Reads one request object the way SWF validates it: wrong JSON types are SerializationException,
 * constraint violations are collected and thrown together as one ValidationException by `done()`.
 */
export class InputReader {
  private readonly problems: string[] = [];
  constructor(private readonly obj: Obj, private readonly prefix = '') {}

  static of(input: unknown): InputReader {
    if (input === null || input === undefined) return new InputReader({});
    if (typeof input !== 'object' || Array.isArray(input)) throw new Fault('SerializationException', 'Request body must be an object');
    return new InputReader(input as Obj);
  }

  private path(name: string): string {
    return this.prefix ? `${this.prefix}.${name}` : name;
  }

  problem(name: string, value: unknown, constraint: string): void {
    const shown = value === undefined || value === null ? 'null' : `'${String(value).slice(0, 64)}'`;
    this.problems.push(`Value ${shown} at '${this.path(name)}' failed to satisfy constraint: ${constraint}`);
  }

  private raw(name: string, type: 'string' | 'number' | 'boolean' | 'object' | 'array', required: boolean): unknown {
    const v = this.obj[name];
    if (v === undefined || v === null) {
      if (required) this.problem(name, v, 'Member must not be null');
      return undefined;
    }
    const ok = type === 'array' ? Array.isArray(v) : type === 'object' ? typeof v === 'object' && !Array.isArray(v) : typeof v === type;
    if (!ok) throw new Fault('SerializationException', `Expected ${type} at '${this.path(name)}'`);
    return v;
  }

  str(name: string, rule: StringRule & { required: true }): string;
  str(name: string, rule: StringRule): string | undefined;
  str(name: string, rule: StringRule): string | undefined {
    const v = this.raw(name, 'string', rule.required ?? false) as string | undefined;
    if (v === undefined) return undefined;
    const bad = unicodeProblem(v);
    if (bad) {
      this.problem(name, v.replace(/\p{Cs}/gu, '\uFFFD'), bad);
      return v;
    }
    const min = rule.min ?? (rule.identifier ? 1 : 0);
    if (v.length < min || v.length > rule.max) this.problem(name, v, `Member must have length between ${min} and ${rule.max}`);
    else if (rule.identifier) {
      const p = identifierProblem(v);
      if (p) this.problems.push(`Invalid name: '${v.slice(0, 64)}' at '${this.path(name)}' ${p}`);
    }
    if (rule.oneOf && !rule.oneOf.includes(v)) this.problem(name, v, `Member must satisfy enum value set: [${rule.oneOf.join(', ')}]`);
    return v;
  }

  /** A required or optional SWF identifier of 1–256 characters. */
  id(name: string, required: true, max?: number): string;
  id(name: string, required: false, max?: number): string | undefined;
  id(name: string, required: boolean, max = 256): string | undefined {
    return this.str(name, { max, identifier: true, required });
  }

  /** Payload fields (input, result, details, control, executionContext): at most 32,768 characters. */
  data(name: string, max = 32_768): string | undefined {
    return this.str(name, { max });
  }

  duration(name: string, opts: { allowNone: boolean; required?: boolean }): string | undefined {
    const v = this.raw(name, 'string', opts.required ?? false) as string | undefined;
    if (v === undefined) return undefined;
    const p = durationProblem(v, opts.allowNone);
    if (p) this.problem(name, v, p);
    return v;
  }

  int(name: string, opts: { min: number; max: number; required?: boolean }): number | undefined {
    const v = this.raw(name, 'number', opts.required ?? false) as number | undefined;
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < opts.min || v > opts.max) this.problem(name, v, `Member must be an integer between ${opts.min} and ${opts.max}`);
    return v;
  }

  bool(name: string): boolean | undefined {
    return this.raw(name, 'boolean', false) as boolean | undefined;
  }

  /** Epoch seconds (the AWS JSON timestamp form); Date objects from msgpack are accepted too. */
  timestamp(name: string, required = false): number | undefined {
    const v = this.obj[name];
    if (v instanceof Date) return v.getTime();
    const n = this.raw(name, 'number', required) as number | undefined;
    return n === undefined ? undefined : Math.round(n * 1000);
  }

  /** A nested structure, read with its own reader sharing this one's problem list. */
  struct<T>(name: string, required: boolean, read: (r: InputReader) => T): T | undefined {
    const v = this.raw(name, 'object', required) as Obj | undefined;
    if (v === undefined) return undefined;
    const child = new InputReader(v, this.path(name));
    const out = read(child);
    this.problems.push(...child.problems);
    return out;
  }

  list<T>(name: string, opts: { max: number; required?: boolean }, read: (r: InputReader, item: unknown, index: number) => T): T[] | undefined {
    const v = this.raw(name, 'array', opts.required ?? false) as unknown[] | undefined;
    if (v === undefined) return undefined;
    if (v.length > opts.max) this.problem(name, `[${v.length} items]`, `Member must have length less than or equal to ${opts.max}`);
    return v.slice(0, opts.max).map((item, i) => {
      const child = new InputReader(typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Obj) : {}, `${this.path(name)}.${i + 1}.member`);
      const out = read(child, item, i);
      this.problems.push(...child.problems);
      return out;
    });
  }

  taskList(name: string, required: boolean): { name: string } | undefined {
    return this.struct(name, required, (r) => ({ name: r.id('name', true) }));
  }

  type(name: string, required: true): { name: string; version: string };
  type(name: string, required: false): { name: string; version: string } | undefined;
  type(name: string, required: boolean): { name: string; version: string } | undefined {
    return this.struct(name, required, (r) => ({ name: r.id('name', true), version: r.id('version', true, 64) }));
  }

  execution(name: string, required: boolean): { workflowId: string; runId: string } | undefined {
    return this.struct(name, required, (r) => ({ workflowId: r.id('workflowId', true), runId: r.str('runId', { min: 1, max: 64, required: true }) }));
  }

  /** SWF task priorities: a string holding a 32-bit integer. */
  priority(name: string): string | undefined {
    const v = this.str(name, { max: 11 });
    if (v !== undefined && !(/^-?\d+$/.test(v) && Number(v) >= -(2 ** 31) && Number(v) <= 2 ** 31 - 1)) this.problem(name, v, 'Member must be a 32-bit integer');
    return v;
  }

  /** An execution's tagList: at most 5 tags of at most 256 characters. */
  tags(name = 'tagList'): string[] | undefined {
    return this.list(name, { max: 5 }, (_t, item) => {
      if (typeof item !== 'string') throw new Fault('SerializationException', `${name} members must be strings`);
      if (item.length > 256) this.problem(name, item, 'Member must have length less than or equal to 256');
      const bad = unicodeProblem(item);
      if (bad) this.problem(name, item.replace(/\p{Cs}/gu, '\uFFFD'), bad);
      return item;
    });
  }

  pageSize(name = 'maximumPageSize'): number | undefined {
    return this.int(name, { min: 0, max: 1000 });
  }

  /** Throws the collected problems as one ValidationException, AWS style. */
  done(): void {
    if (this.problems.length === 0) return;
    const n = this.problems.length;
    throw new Fault('ValidationException', `${n} validation error${n > 1 ? 's' : ''} detected: ${this.problems.join('; ')}`);
  }
}
