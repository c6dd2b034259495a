import { describe, expect, it } from 'vitest';
import { MAX_TRANSITION_BYTES } from '../../src/history/history-store.js';
import { decode, encode } from '../../src/protocol/codec.js';
import type { SfnStoredEvent } from '../../src/sfn/kind/sfn-events.js';
import { chunkEvents, planTransition } from '../../src/sfn/kind/transition-chunks.js';

const event = (id: number, pad = 0): SfnStoredEvent => ({
  type: 'PassStateEntered', id, at: 1_700_000_000_000, prev: id - 1, attrs: { name: 'Spin', input: `{"pad":"${'x'.repeat(pad)}"}`, inputDetails: { truncated: false } },
});

describe('chunkEvents', () => {
  it('splits a transition too large for one message into runs that each fit beside the extra, in order', () => {
    const events = Array.from({ length: 25_000 }, (_, i) => event(i + 1, 20));
    const extra = { snapshot: { context: { data: 'y'.repeat(50_000) } }, book: { lastEventId: 25_000 } };
    const chunks = chunkEvents(events, extra);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat().map((e) => e.id)).toEqual(events.map((e) => e.id));
    for (const c of chunks) expect(encode({ events: c, extra }).length).toBeLessThanOrEqual(MAX_TRANSITION_BYTES);
  });

  it('keeps a small transition whole and an event too large alone', () => {
    expect(chunkEvents([event(1), event(2)], {})).toEqual([[event(1), event(2)]]);
    const huge = event(2, MAX_TRANSITION_BYTES);
    expect(chunkEvents([event(1), huge, event(3)], {}).map((c) => c.map((e) => e.id))).toEqual([[1], [2], [3]]);
  });
});

describe('planTransition', () => {
  it('keeps a transition that fits in one message', () => {
    const plan = planTransition([event(1), event(2)], { snapshot: 1 }, 0);
    expect(plan).toEqual({ leading: [], last: { events: [event(1), event(2)], extra: { snapshot: 1 }, isPart: false } });
  });

  it('writes a snapshot of 3 MB as parts before the last message; every message fits and the parts give the snapshot back', () => {
    const extra = { snapshot: { kids: Array.from({ length: 12 }, (_, i) => 'k'.repeat(250_000) + i) }, book: { lastEventId: 9 } };
    const events = Array.from({ length: 9 }, (_, i) => event(i + 1, 1000));
    const plan = planTransition(events, extra, 41);
    const all = [...plan.leading, plan.last];
    for (const m of all) expect(encode({ events: m.events, extra: m.extra }).length).toBeLessThanOrEqual(MAX_TRANSITION_BYTES);
    expect(all.flatMap((m) => m.events).map((e) => e.id)).toEqual(events.map((e) => e.id));
    for (const m of plan.leading) expect(m.extra).toMatchObject({ partial: true, restore: 41, upTo: 9 });
    const parts = plan.leading.filter((m) => m.isPart).map((m) => (m.extra as { part: Uint8Array }).part);
    expect(parts.length).toBeGreaterThan(2);
    const last = plan.last.extra as { parts: number[]; part: Uint8Array };
    expect(decode(Buffer.concat([...parts, last.part]))).toEqual(extra);
  });
});
