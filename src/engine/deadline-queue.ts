import type { EngineClock } from './clock.js';

/**
 * A min-heap of (deadline, id) with one clock timer armed for the earliest entry: how a node keeps
 * a million sleeping runs' wake-up times without a timer each. Stale entries are the caller's to
 * skip (`onDue` checks that the id still sleeps with that deadline).
 */
export class DeadlineQueue {
  private readonly heap: { at: number; id: string }[] = [];
  private timer: unknown;
  private armedAt = Infinity;

  constructor(private readonly clock: EngineClock, private readonly onDue: (id: string, at: number) => void) {}

  get size(): number {
    return this.heap.length;
  }

  push(id: string, at: number): void {
    const h = this.heap;
    h.push({ at, id });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.at <= h[i]!.at) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
    if (at < this.armedAt) this.arm();
  }

  private pop(): { at: number; id: string } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }

  private arm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const next = this.heap[0];
    if (!next) { this.timer = undefined; this.armedAt = Infinity; return; }
    this.armedAt = next.at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.armedAt = Infinity;
      const now = this.clock.now();
      while (this.heap.length > 0 && this.heap[0]!.at <= now) {
        const e = this.pop()!;
        this.onDue(e.id, e.at);
      }
      this.arm();
    }, Math.max(0, next.at - this.clock.now()));
  }

  /** Drops every entry whose id matches (a partition handed to another node), keeping the heap order. */
  removeWhere(pred: (id: string) => boolean): number {
    // In place: `push(...kept)` spreads every entry as an argument and throws past ~125,000 of them.
    const h = this.heap;
    let n = 0;
    for (const e of h) if (!pred(e.id)) h[n++] = e;
    const removed = h.length - n;
    if (removed === 0) return 0;
    h.length = n;
    h.sort((a, b) => a.at - b.at); // a sorted array is a valid min-heap
    this.arm();
    return removed;
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    this.heap.length = 0;
  }
}
