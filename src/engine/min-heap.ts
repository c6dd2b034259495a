/** A binary min-heap ordered by `before` (the earliest deadline on top). */
export class MinHeap<T> {
  private readonly h: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.h.length;
  }

  peek(): T | undefined {
    return this.h[0];
  }

  push(e: T): void {
    const h = this.h;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i]!, h[p]!)) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  pop(): T | undefined {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }

  /** Drops every entry `pred` matches, keeping the heap order; returns how many went. */
  removeWhere(pred: (e: T) => boolean): number {
    // In place: `push(...kept)` spreads every entry as an argument and throws past ~125,000 of them.
    const h = this.h;
    let n = 0;
    for (const e of h) if (!pred(e)) h[n++] = e;
    const removed = h.length - n;
    if (removed === 0) return 0;
    h.length = n;
    h.sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0)); // a sorted array is a valid min-heap
    return removed;
  }

  clear(): void {
    this.h.length = 0;
  }
}
