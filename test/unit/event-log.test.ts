import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { EventLog, TAIL_BYTES } from '../../src/history/event-log.js';
import { GatedClock } from '../../src/engine/gated-clock.js';
import { createSystemClock } from '../../src/engine/clock.js';

const big = 'x'.repeat(100_000);
const ev = (id: number): HistoryEvent => ({ type: 'WorkflowExecutionSignaled', id, at: id, attrs: { input: big } }) as HistoryEvent;

describe('EventLog', () => {
  it('holds the first event and a bounded tail; older events are read back by sequence', async () => {
    const stored = new Map<number, HistoryEvent[]>();
    const reads: number[] = [];
    const log = new EventLog(async (seq) => { reads.push(seq); return stored.get(seq)!; });
    for (let id = 1; id <= 200; id += 2) {
      const events = [ev(id), ev(id + 1)];
      stored.set(1000 + id, events);
      log.push(events, 1000 + id);
    }
    expect(log.length).toBe(200);
    expect(log.first.id).toBe(1);
    expect(log.last.id).toBe(200);
    expect(log.heldBytes).toBeLessThanOrEqual(TAIL_BYTES + 250_000);
    expect(log.peek(200)?.id).toBe(200);
    expect(log.peek(50)).toBeUndefined();
    expect((await log.get(50)).id).toBe(50);
    expect((await log.get(49)).id).toBe(49); // same transition: read once
    expect(reads).toEqual([1049]);
    expect(log.peek(50)?.id).toBe(50);
    await expect(log.get(201)).rejects.toThrow(RangeError);
    expect((await log.all()).map((e) => e.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(log.heldBytes).toBeLessThanOrEqual(TAIL_BYTES + 1024 * 1024 + 250_000);
  });
  it('finds every event of the tail and of the read cache across transitions of 1 to 3 events', async () => {
    const stored = new Map<number, HistoryEvent[]>();
    const log = new EventLog(async (seq) => stored.get(seq)!);
    const sized = (id: number, n: number): HistoryEvent => ({ type: 'WorkflowExecutionSignaled', id, at: id, attrs: { input: 'y'.repeat(n) } }) as HistoryEvent;
    let id = 1;
    for (let t = 0; t < 3000; t++) {
      const events = Array.from({ length: 1 + (t % 3) }, () => sized(id++, 200 + (t % 7) * 150));
      stored.set(t + 1, events);
      log.push(events, t + 1);
    }
    const n = log.length;
    expect(n).toBe(id - 1);
    const held = Array.from({ length: n }, (_, i) => log.peek(i + 1));
    const firstHeld = held.findIndex((e, i) => i > 0 && e !== undefined) + 1;
    expect(firstHeld).toBeGreaterThan(2);
    // In memory: event 1 and one run of the newest events, each the event of its id.
    held.forEach((e, i) => {
      if (i === 0 || i + 1 >= firstHeld) expect(e?.id).toBe(i + 1);
      else expect(e).toBeUndefined();
    });
    expect((await log.get(firstHeld - 1)).id).toBe(firstHeld - 1);
    expect(log.peek(firstHeld - 1)?.id).toBe(firstHeld - 1);
    expect(log.peek(n + 1)).toBeUndefined();
  });
});

describe('GatedClock', () => {
  it('holds timers until opened, then fires each at its original deadline', async () => {
    const gate = new GatedClock(createSystemClock());
    const fired: string[] = [];
    gate.setTimeout(() => fired.push('due'), 0);
    const cancelled = gate.setTimeout(() => fired.push('cancelled'), 0);
    gate.clearTimeout(cancelled);
    await new Promise((r) => setTimeout(r, 30));
    expect(fired).toEqual([]);
    const t0 = Date.now();
    gate.setTimeout(() => fired.push('later'), 60);
    gate.open();
    await new Promise((r) => setTimeout(r, 10));
    expect(fired).toEqual(['due']);
    await new Promise((r) => setTimeout(r, 80));
    expect(fired).toEqual(['due', 'later']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(60);
  });
});
