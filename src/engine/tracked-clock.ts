import type { EngineClock } from './clock.js';

/**
 * One execution's view of the engine clock that knows the deadlines its actors wait for: XState
 * schedules every delayed transition (a Wait, a retry, a timeout) through `setTimeout`, so the
 * earliest pending one is the execution's next deadline, when it may sleep until then.
 */
export class TrackedClock implements EngineClock {
  private readonly due = new Map<unknown, number>();

  constructor(private readonly inner: EngineClock) {}

  now(): number {
    return this.inner.now();
  }

  get skipping(): EngineClock['skipping'] {
    return this.inner.skipping;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const at = this.inner.now() + Math.max(0, ms);
    const box: { id?: unknown } = {};
    box.id = this.inner.setTimeout(() => { this.due.delete(box); fn(); }, ms);
    this.due.set(box, at);
    return box;
  }

  clearTimeout(handle: unknown): void {
    const box = handle as { id?: unknown };
    if (!this.due.delete(box)) return;
    this.inner.clearTimeout(box.id);
  }

  /** The earliest pending deadline (epoch ms), Infinity when nothing waits. */
  nextDeadline(): number {
    let next = Infinity;
    for (const at of this.due.values()) if (at < next) next = at;
    return next;
  }

  /** Cancels every pending timer (the execution leaves memory). */
  clearAll(): void {
    for (const box of this.due.keys()) this.inner.clearTimeout((box as { id?: unknown }).id);
    this.due.clear();
  }
}
