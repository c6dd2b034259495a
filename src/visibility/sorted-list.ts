/**
 * A sorted multiset in chunks of at most 2 × CHUNK items (a one-level B-tree): insert and delete
 * cost a binary search plus a splice inside one chunk, so they stay cheap at hundreds of thousands
 * of items, and ranges are walked in either direction without sorting anything per query.
 */
const CHUNK = 512;

/** A place between items: chunk index and offset inside it. */
export interface Pos { c: number; i: number }

export class SortedList<T> {
  private chunks: T[][] = [];
  private n = 0;

  constructor(private readonly cmp: (a: T, b: T) => number) {}

  /** Builds from items already sorted by `cmp` (bulk loads). */
  static fromSorted<T>(cmp: (a: T, b: T) => number, sorted: T[]): SortedList<T> {
    const l = new SortedList(cmp);
    for (let k = 0; k < sorted.length; k += CHUNK) l.chunks.push(sorted.slice(k, k + CHUNK));
    l.n = sorted.length;
    return l;
  }

  get size(): number {
    return this.n;
  }

  /** The first place whose item is not `before` (items where `before(x)` holds all come first). */
  bound(before: (x: T) => boolean): Pos {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid]!;
      if (before(chunk[chunk.length - 1]!)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.chunks.length) return { c: lo, i: 0 };
    const chunk = this.chunks[lo]!;
    let a = 0;
    let b = chunk.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (before(chunk[mid]!)) a = mid + 1;
      else b = mid;
    }
    return { c: lo, i: a };
  }

  insert(x: T): void {
    const p = this.bound((y) => this.cmp(y, x) <= 0);
    if (this.chunks.length === 0) {
      this.chunks.push([x]);
    } else {
      const c = p.c === this.chunks.length ? p.c - 1 : p.c;
      const chunk = this.chunks[c]!;
      chunk.splice(p.c === this.chunks.length ? chunk.length : p.i, 0, x);
      if (chunk.length > 2 * CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(CHUNK));
    }
    this.n++;
  }

  /** Removes this very item (found by its sort position, then identity). */
  delete(x: T): boolean {
    const p = this.bound((y) => this.cmp(y, x) < 0);
    for (let c = p.c, i = p.i; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      for (; i < chunk.length; i++) {
        const y = chunk[i]!;
        if (y === x) {
          chunk.splice(i, 1);
          if (chunk.length === 0) this.chunks.splice(c, 1);
          this.n--;
          return true;
        }
        if (this.cmp(y, x) !== 0) return false;
      }
    }
    return false;
  }

  /** The smallest item, if any. */
  first(): T | undefined {
    return this.chunks[0]?.[0];
  }

  /**
   * Items in [from, to), ascending, or descending from just before `to` when `reverse`. Counting a
   * range with no predicate sums whole chunks.
   */
  *range(from: Pos, to: Pos, reverse: boolean): Generator<T> {
    if (!reverse) {
      for (let c = from.c, i = from.i; c < this.chunks.length && (c < to.c || (c === to.c && i < to.i)); c++, i = 0) {
        const chunk = this.chunks[c]!;
        const end = c === to.c ? to.i : chunk.length;
        for (; i < end; i++) yield chunk[i]!;
      }
      return;
    }
    let c = to.c;
    let i = to.i - 1;
    if (c === this.chunks.length) { c--; i = (this.chunks[c]?.length ?? 0) - 1; }
    for (; c >= 0 && (c > from.c || (c === from.c && i >= from.i)); ) {
      if (i < 0) { c--; i = (this.chunks[c]?.length ?? 0) - 1; continue; }
      if (c === from.c && i < from.i) break;
      yield this.chunks[c]![i--]!;
    }
  }

  /** The number of items in [from, to). */
  count(from: Pos, to: Pos): number {
    if (from.c > to.c || (from.c === to.c && from.i >= to.i)) return 0;
    if (from.c === to.c) return to.i - from.i;
    let n = this.chunks[from.c]!.length - from.i;
    for (let c = from.c + 1; c < to.c && c < this.chunks.length; c++) n += this.chunks[c]!.length;
    if (to.c < this.chunks.length) n += to.i;
    return n;
  }
}
