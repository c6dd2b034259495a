import type { EngineClock } from './clock.js';
import { MinHeap } from './min-heap.js';

/**
 * A min-heap of (deadline, id) with one clock timer armed for the earliest entry: how a node keeps
 * a million sleeping runs' wake-up times without a timer each. Stale entries are the caller's to
 * skip (`onDue` checks that the id still sleeps with that deadline).
 */
export class DeadlineQueue {
  private readonly heap = new MinHeap<{ at: number; id: string }>((a, b) => a.at < b.at);
  private timer: unknown;
  private armedAt = Infinity;

  constructor(private readonly clock: EngineClock, private readonly onDue: (id: string, at: number) => void) {}

  get size(): number {
    return this.heap.size;
  }

  push(id: string, at: number): void {
    this.heap.push({ at, id });
    if (at < this.armedAt) this.arm();
  }

  private arm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const next = this.heap.peek();
    if (!next) { this.timer = undefined; this.armedAt = Infinity; return; }
    this.armedAt = next.at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.armedAt = Infinity;
      const now = this.clock.now();
      while (this.heap.size > 0 && this.heap.peek()!.at <= now) {
        const e = this.heap.pop()!;
        this.onDue(e.id, e.at);
      }
      this.arm();
    }, Math.max(0, next.at - this.clock.now()));
  }

  /** Drops every entry whose id matches (a partition handed to another node), keeping the heap order. */
  removeWhere(pred: (id: string) => boolean): number {
    const removed = this.heap.removeWhere((e) => pred(e.id));
    if (removed > 0) this.arm();
    return removed;
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    this.heap.clear();
  }
}
