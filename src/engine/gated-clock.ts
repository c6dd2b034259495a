import type { EngineClock } from './clock.js';

interface Held {
  fn: () => void;
  due: number;
  inner?: unknown;
}

/**
 * A clock whose timers wait while a run's history streams in: a rebuild feeds transitions with
 * awaits in between, and a deadline already past must not fire before the later transitions (and
 * restored heartbeats) are in. `open()` arms every held timer for the time it has left, so each
 * still fires at its original deadline.
 */
export class GatedClock implements EngineClock {
  private readonly timers = new Map<number, Held>();
  private next = 1;
  private gated = true;

  constructor(private readonly inner: EngineClock) {}

  now(): number {
    return this.inner.now();
  }

  get skipping(): EngineClock['skipping'] {
    return this.inner.skipping;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    if (!this.gated) return { inner: this.inner.setTimeout(fn, ms) };
    const id = this.next++;
    this.timers.set(id, { fn, due: this.inner.now() + Math.max(0, ms) });
    return id;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === 'number') {
      const t = this.timers.get(id);
      this.timers.delete(id);
      if (t?.inner !== undefined) this.inner.clearTimeout(t.inner);
    } else if (id && typeof id === 'object' && 'inner' in id) {
      this.inner.clearTimeout((id as { inner: unknown }).inner);
    }
  }

  /** Lets time run: held timers are armed for what is left of their wait. */
  open(): void {
    if (!this.gated) return;
    this.gated = false;
    for (const [id, t] of this.timers) {
      t.inner = this.inner.setTimeout(() => { this.timers.delete(id); t.fn(); }, Math.max(0, t.due - this.inner.now()));
    }
  }
}
