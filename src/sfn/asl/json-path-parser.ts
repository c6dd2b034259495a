/** The JSONPath grammar ActorFlow accepts (see json-path.ts for the semantics). */
export type PathSegment =
  /** `$` (the data), `$$` (the context object) or `$name` (a workflow variable). */
  | { kind: 'root'; context: boolean; variable?: string }
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

const NAME_STOP = new Set(['.', '[', ']', '(', ')', ',', "'", '"', '*', '?', ' ', '\t', '\n', '\r', '=', '!', '<', '>', '&', '|']);

/** Parses one path; `parse()` returns its segments (the root first) or null. */
export class PathParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): PathSegment[] | null {
    if (this.s[0] !== '$') return null;
    const context = this.s[1] === '$';
    this.i = context ? 2 : 1;
    // `$name…`: a workflow variable (a name as the States Language allows one: a letter or _ first).
    const variable = context ? null : /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(1))?.[0] ?? null;
    if (variable !== null) this.i += variable.length;
    const segs = this.segments();
    if (segs === null || this.i !== this.s.length) return null;
    return [variable !== null ? { kind: 'root', context, variable } : { kind: 'root', context }, ...segs];
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
