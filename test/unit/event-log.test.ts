import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { EventLog, TAIL_BYTES } from '../../src/swf/kind/event-log.js';
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
