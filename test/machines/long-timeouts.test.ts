import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createActivityTaskMachine, type ActivityTaskInput } from '../../machines/swf/activity-task.machine.js';
import type { TimeoutType } from '../../machines/swf/history-event.js';
import { createSystemClock, type EngineClock } from '../../src/engine/clock.js';
import { DeadlineQueue } from '../../src/engine/deadline-queue.js';
import { DAY, SECOND, ev } from './helpers.js';

/**
 * Timeouts longer than Node's setTimeout limit (2^31-1 ms ≈ 24.8 days; longer delays fire after
 * 1 ms) and the wake-up queue of sleeping runs. No server: real time for the actor test, fake
 * clocks for the rest.
 */

const MAX_TIMEOUT = 2 ** 31 - 1;

describe('activity timeouts longer than 2^31-1 ms on the system clock', () => {
  it('a 30-day START_TO_CLOSE (and a 40-day SCHEDULE_TO_START) do not fire after 2 s of real time', async () => {
    const clock = createSystemClock();
    const calls: Array<{ timeoutType: TimeoutType }> = [];
    const reportTimeout = (_: unknown, p: { timeoutType: TimeoutType }) => { calls.push(p); };
    const machine = createActivityTaskMachine(clock).provide({ actions: { reportTimeout } });
    const none = { scheduleToStartMs: null, scheduleToCloseMs: null, startToCloseMs: null, heartbeatMs: null };
    const now = clock.now();
    const started = createActor(machine, { input: { ...none, scheduledAt: now, startToCloseMs: 30 * DAY } satisfies ActivityTaskInput, clock });
    const waiting = createActor(machine, { input: { ...none, scheduledAt: now, scheduleToStartMs: 40 * DAY }, clock });
    started.start();
    waiting.start();
    try {
      started.send(ev('ActivityTaskStarted', now, { scheduledEventId: 1, identity: 'w' }));
      expect(started.getSnapshot().value).toBe('started');
      expect(started.getSnapshot().context.startToCloseDeadline).toBe(now + 30 * DAY);
      expect(30 * DAY).toBeGreaterThan(MAX_TIMEOUT);

      await new Promise((r) => setTimeout(r, 2 * SECOND));

      expect(calls).toEqual([]);
      expect(started.getSnapshot().value).toBe('started');
      expect(started.getSnapshot().status).toBe('active');
      expect(waiting.getSnapshot().value).toBe('scheduled');
      expect(waiting.getSnapshot().status).toBe('active');
    } finally {
      started.stop();
      waiting.stop();
    }
  });
});

describe('createSystemClock', () => {
  afterEach(() => { vi.useRealTimers(); });

  it('chains a 2^31+5000 ms wait: not due at 2^31-1 ms, due at 2^31+5000 ms', () => {
    vi.useFakeTimers();
    const clock = createSystemClock();
    const t0 = clock.now();
    let firedAt: number | undefined;
    clock.setTimeout(() => { firedAt = Date.now(); }, 2 ** 31 + 5000);
    vi.advanceTimersByTime(MAX_TIMEOUT);
    expect(firedAt).toBeUndefined();
    vi.advanceTimersByTime(5000); // 2^31 + 4999 ms
    expect(firedAt).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(firedAt).toBe(t0 + 2 ** 31 + 5000);
  });

  it('fires a short wait at its time and clears a chained wait between steps', () => {
    vi.useFakeTimers();
    const clock = createSystemClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('short'), 1000);
    const long = clock.setTimeout(() => fired.push('long'), 3 * MAX_TIMEOUT);
    vi.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['short']);
    vi.advanceTimersByTime(MAX_TIMEOUT + 10); // the long wait has re-armed its next step
    clock.clearTimeout(long);
    vi.advanceTimersByTime(3 * MAX_TIMEOUT);
    expect(fired).toEqual(['short']);
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** An EngineClock whose time and timers the test moves by hand. */
class FakeClock implements EngineClock {
  t = 1_000_000;
  private nextId = 1;
  readonly timers = new Map<number, { fn: () => void; at: number }>();
  /** Every setTimeout call, as the absolute time it was armed for. */
  readonly armed: number[] = [];
  readonly cleared: number[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { fn, at: this.t + ms });
    this.armed.push(this.t + ms);
    return id;
  }

  clearTimeout(id: unknown): void {
    if (this.timers.delete(id as number)) this.cleared.push(id as number);
  }

  /** The absolute times of the timers armed right now. */
  pending(): number[] {
    return [...this.timers.values()].map((x) => x.at).sort((a, b) => a - b);
  }

  /** Moves time to `to`, running each timer at its own time, in order. */
  advanceTo(to: number): void {
    for (;;) {
      let first: [number, { fn: () => void; at: number }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= to && (!first || entry[1].at < first[1].at)) first = entry;
      if (!first) break;
      this.timers.delete(first[0]);
      this.t = Math.max(this.t, first[1].at);
      first[1].fn();
    }
    this.t = to;
  }
}

describe('DeadlineQueue', () => {
  const setup = () => {
    const clock = new FakeClock();
    const due: Array<[string, number]> = [];
    const q = new DeadlineQueue(clock, (id, at) => { due.push([id, at]); });
    return { clock, due, q, t0: clock.t };
  };

  it('fires entries in deadline order, each only once it is due', () => {
    const { clock, due, q, t0 } = setup();
    q.push('c', t0 + 300);
    q.push('a', t0 + 100);
    q.push('e', t0 + 500);
    q.push('b', t0 + 200);
    q.push('d', t0 + 400);
    expect(q.size).toBe(5);
    clock.advanceTo(t0 + 99);
    expect(due).toEqual([]);
    clock.advanceTo(t0 + 100);
    expect(due).toEqual([['a', t0 + 100]]);
    clock.advanceTo(t0 + 399);
    expect(due.map(([id]) => id)).toEqual(['a', 'b', 'c']);
    clock.advanceTo(t0 + 10_000);
    expect(due).toEqual([['a', t0 + 100], ['b', t0 + 200], ['c', t0 + 300], ['d', t0 + 400], ['e', t0 + 500]]);
    expect(q.size).toBe(0);
    expect(clock.timers.size).toBe(0);
  });

  it('drops a partition\'s entries from a heap of 200,000 (180,000 kept) and still fires the rest in order', () => {
    // removeWhere used to rebuild with push(...kept), which throws RangeError past ~125,000 entries:
    // every later wake-up of the node (sleeping runs' timers, retention) was then lost.
    const { clock, due, q, t0 } = setup();
    const n = 200_000;
    for (let i = 0; i < n; i++) q.push(`${i % 10 ? 'keep' : 'drop'}-${i}`, t0 + 1 + ((i * 7919) % n));
    expect(q.removeWhere((id) => id.startsWith('drop'))).toBe(n / 10);
    expect(q.size).toBe(n - n / 10);
    clock.advanceTo(t0 + n + 1);
    expect(due).toHaveLength(n - n / 10);
    expect(due.every(([id]) => id.startsWith('keep'))).toBe(true);
    expect(due.every(([, at], i) => i === 0 || due[i - 1]![1] <= at)).toBe(true);
  });

  it('keeps one timer armed, for the earliest entry', () => {
    const { clock, q, t0 } = setup();
    q.push('x', t0 + 500);
    expect(clock.pending()).toEqual([t0 + 500]);
    q.push('y', t0 + 800); // later: no re-arm
    q.push('z', t0 + 500); // same time: no re-arm
    expect(clock.armed).toEqual([t0 + 500]);
    expect(clock.pending()).toEqual([t0 + 500]);
    clock.advanceTo(t0 + 500);
    // x and z went in one wake-up; the next timer is for y alone.
    expect(clock.pending()).toEqual([t0 + 800]);
    expect(clock.armed).toEqual([t0 + 500, t0 + 800]);
  });

  it('re-arms when an earlier deadline is pushed', () => {
    const { clock, due, q, t0 } = setup();
    q.push('late', t0 + 1000);
    q.push('early', t0 + 200);
    expect(clock.pending()).toEqual([t0 + 200]);
    expect(clock.cleared).toHaveLength(1);
    q.push('earlier', t0 + 50);
    expect(clock.pending()).toEqual([t0 + 50]);
    clock.advanceTo(t0 + 50);
    expect(due).toEqual([['earlier', t0 + 50]]);
    expect(clock.pending()).toEqual([t0 + 200]);
    // A deadline already past fires on the next tick (a 0 ms timer), before the later ones.
    clock.t = t0 + 100;
    q.push('overdue', t0 + 10);
    expect(clock.pending()).toEqual([t0 + 100]);
    clock.advanceTo(t0 + 100);
    expect(due.map(([id]) => id)).toEqual(['earlier', 'overdue']);
    clock.advanceTo(t0 + 1000);
    expect(due.map(([id]) => id)).toEqual(['earlier', 'overdue', 'early', 'late']);
  });

  it('re-arms instead of firing when its timer comes early', () => {
    const { clock, due, q, t0 } = setup();
    q.push('a', t0 + 100);
    const [[, timer]] = [...clock.timers];
    clock.timers.clear();
    clock.t = t0 + 90; // the timer runs 10 ms before the deadline
    timer!.fn();
    expect(due).toEqual([]);
    expect(clock.pending()).toEqual([t0 + 100]);
    clock.advanceTo(t0 + 100);
    expect(due).toEqual([['a', t0 + 100]]);
  });

  it('stop() clears the armed timer and every entry', () => {
    const { clock, due, q, t0 } = setup();
    q.push('a', t0 + 100);
    q.push('b', t0 + 200);
    q.stop();
    expect(clock.timers.size).toBe(0);
    expect(q.size).toBe(0);
    clock.advanceTo(t0 + 1000);
    expect(due).toEqual([]);
    // The queue can be used again: a later push arms a fresh timer.
    q.push('c', t0 + 1500);
    expect(clock.pending()).toEqual([t0 + 1500]);
    clock.advanceTo(t0 + 1500);
    expect(due).toEqual([['c', t0 + 1500]]);
  });
});
