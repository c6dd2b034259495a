import type { HistoryEvent } from '../../machines/swf/history-event.js';
import type { EngineClock, TimeSkipping } from './clock.js';
import { MinHeap } from './min-heap.js';

/** Which tasks are in a worker's hand, told by the transitions stored (the kinds' event names live with the watcher). */
export interface TaskWatch {
  stored(historyId: string, events: readonly HistoryEvent[]): void;
  /** Tasks handed out and not yet answered (or closed). */
  readonly inHand: number;
}

export interface VirtualClockOptions {
  /** Virtual time at creation (epoch ms; default: the wall clock's). */
  start?: number;
  /** Jump to the next deadline whenever nothing runs (default true). */
  skip?: boolean;
  /** Tasks in hand hold time still (without it, only commands and appends do). */
  watch?: TaskWatch;
  /** How long (real ms) nothing must run before time jumps (default 100): the hops between the engine's steps. */
  quietMs?: number;
}

interface Timer {
  id: number;
  at: number;
  fn: () => void;
  /** Housekeeping: fires when time passes it, but time never jumps to it. */
  background: boolean;
}

const MAX_TIMEOUT = 2 ** 31 - 1;
/** How often (real ms) the skipper looks whether the engine is quiet. */
const LOOK_MS = 10;
/** How long (real ms) an explicit advance waits for the engine to finish one deadline's work before the next. */
const SETTLE_CAP_MS = 10_000;

/**
 * A clock whose time is the wall clock's plus an offset that only grows: time passes as usual, and
 * jumps forward on demand (`advance`, `advanceTo`) or by itself (time-skipping). Timers live in two
 * heaps (deadlines, housekeeping) with one real timer armed for the earliest; a jump fires every
 * timer it passes, in order, each at its own virtual time.
 *
 * The time-skipping rule: time jumps to the next deadline (an SWF timer, a workflow, decision or
 * activity timeout, a Step Functions Wait, retry, heartbeat or timeout, a sleeping execution's
 * wake-up) only when nothing runs: no command is being processed, no history append is in flight
 * (both held through `skipping.hold()`), no task is in a worker's hand (the TaskWatch: an activity
 * or decision task handed out and unanswered, a Step Functions activity task started), and that
 * has been so for `quietMs` of real time, which covers the hops between the engine's steps (a
 * task offered to a waiting poller, a poller asking the owner to start it). A worker holding a task
 * therefore never sees it time out because time jumped; it can only time out in real time. Long
 * polls wait in real time and are not work: a waiting poller neither holds time nor spins it.
 * Housekeeping timers (retention of closed runs) never draw time to them.
 */
export class VirtualClock implements EngineClock {
  private offset: number;
  private readonly deadlines = new MinHeap<Timer>(VirtualClock.before);
  private readonly housekeeping = new MinHeap<Timer>(VirtualClock.before);
  private readonly live = new Map<number, Timer>();
  private next = 1;
  private real: NodeJS.Timeout | undefined;
  private armedAt = Infinity;
  private holds = 0;
  private quietSince = Date.now();
  private skip: boolean;
  private readonly skipper: NodeJS.Timeout;
  /** An explicit advance is running: the skipper waits. */
  private advancing = false;
  private readonly quietMs: number;
  private readonly watch: TaskWatch | undefined;
  private stopped = false;
  readonly skipping: TimeSkipping;

  constructor(o: VirtualClockOptions = {}) {
    this.offset = (o.start ?? Date.now()) - Date.now();
    this.skip = o.skip ?? true;
    this.quietMs = o.quietMs ?? 100;
    this.watch = o.watch;
    const background: EngineClock = {
      now: () => this.now(),
      setTimeout: (fn, ms) => this.schedule(fn, ms, true),
      clearTimeout: (id) => this.clearTimeout(id),
    };
    this.skipping = {
      hold: () => this.hold(),
      stored: (id, events) => this.watch?.stored(id, events),
      background,
    };
    this.skipper = setInterval(() => this.maybeSkip(), LOOK_MS);
    this.skipper.unref();
  }

  private static before(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.id < b.id);
  }

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    return this.schedule(fn, ms, false);
  }

  clearTimeout(id: unknown): void {
    // Left in its heap and skipped when it comes up (timers are cleared far more often than heaps are read).
    this.live.delete(id as number);
  }

  /** Turns time-skipping on or off (explicit advances work either way). */
  setSkipping(on: boolean): void {
    this.skip = on;
    this.quietSince = Date.now();
  }

  get skippingTime(): boolean {
    return this.skip;
  }

  /** Whether nothing runs now: no command, no append, no task in hand. */
  get idle(): boolean {
    return this.holds === 0 && (this.watch?.inHand ?? 0) === 0;
  }

  /** The earliest deadline timer (epoch ms), Infinity when none (housekeeping timers are not counted). */
  nextDeadline(): number {
    return this.peek(this.deadlines)?.at ?? Infinity;
  }

  /** Moves time forward by `ms`, firing the timers it passes, in order (see advanceTo). */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.now() + Math.max(0, ms));
  }

  /**
   * Moves time forward to `t`: each timer due by then fires at its own virtual time, and the work it
   * starts (a command, an append) finishes before time moves to the next, so each deadline is
   * stamped in history at its time. Tasks in hand do not stop an explicit advance.
   */
  async advanceTo(t: number): Promise<void> {
    while (this.advancing) await pause(LOOK_MS);
    this.advancing = true;
    try {
      for (;;) {
        const next = this.earliest();
        if (!next || next.at > t) break;
        this.jumpTo(next.at);
        await this.settle();
      }
      this.jumpTo(t);
      await this.settle();
    } finally {
      this.advancing = false;
      this.quietSince = Date.now();
    }
  }

  /** Stops the clock's own real timers (the engine stops its timers itself). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.skipper);
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
  }

  private hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds--;
      this.quietSince = Date.now();
    };
  }

  private schedule(fn: () => void, ms: number, background: boolean): number {
    const timer: Timer = { id: this.next++, at: this.now() + Math.max(0, ms), fn, background };
    this.live.set(timer.id, timer);
    (background ? this.housekeeping : this.deadlines).push(timer);
    if (timer.at < this.armedAt) this.arm();
    return timer.id;
  }

  /** The heap's earliest timer not cleared (cleared ones on top are dropped). */
  private peek(heap: MinHeap<Timer>): Timer | undefined {
    for (let t = heap.peek(); t; t = heap.peek()) {
      if (this.live.get(t.id) === t) return t;
      heap.pop();
    }
    return undefined;
  }

  private earliest(): Timer | undefined {
    const a = this.peek(this.deadlines);
    const b = this.peek(this.housekeeping);
    if (!a) return b;
    if (!b) return a;
    return VirtualClock.before(a, b) ? a : b;
  }

  /** One real timer for the earliest timer, re-armed after every change of the earliest or of the offset. */
  private arm(): void {
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
    const next = this.earliest();
    this.armedAt = next?.at ?? Infinity;
    if (!next || this.stopped) return;
    this.real = setTimeout(() => { this.real = undefined; this.armedAt = Infinity; this.fireDue(); }, Math.min(MAX_TIMEOUT, Math.max(0, next.at - this.now())));
    this.real.unref();
  }

  /** Fires every timer due now, earliest first. */
  private fireDue(): void {
    // Timers set while these fire wait for the next real tick, as a real clock's would.
    const upTo = this.next;
    for (let t = this.earliest(); t && t.at <= this.now() && t.id < upTo; t = this.earliest()) {
      (t.background ? this.housekeeping : this.deadlines).pop();
      this.live.delete(t.id);
      try {
        t.fn();
      } catch (err) {
        queueMicrotask(() => { throw err; });
      }
    }
    this.arm();
  }

  /** Sets time to `t` (never backwards) and fires what came due. */
  private jumpTo(t: number): void {
    const now = this.now();
    if (t > now) this.offset += t - now;
    this.fireDue();
  }

  /** Waits until no command or append has run for `quietMs` (bounded: a stuck one does not stop an advance). */
  private async settle(): Promise<void> {
    const until = Date.now() + SETTLE_CAP_MS;
    this.quietSince = Date.now();
    while (Date.now() < until && (this.holds > 0 || Date.now() - this.quietSince < this.quietMs)) await pause(LOOK_MS);
  }

  /** The time-skipping step: quiet for `quietMs` with a deadline ahead → time jumps to it. */
  private maybeSkip(): void {
    if (!this.skip || this.advancing || this.stopped) return;
    if (!this.idle) { this.quietSince = Date.now(); return; }
    if (Date.now() - this.quietSince < this.quietMs) return;
    const next = this.peek(this.deadlines);
    if (!next || next.at <= this.now()) return;
    this.jumpTo(next.at);
    this.quietSince = Date.now();
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
