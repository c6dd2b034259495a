import { describe, expect, it } from 'vitest';
import { MAX_TRANSITION_BYTES } from '../../src/history/history-store.js';
import { encode } from '../../src/nats/codec.js';
import type { SfnStoredEvent } from '../../src/sfn/runtime/sfn-events.js';
import { chunkEvents } from '../../src/sfn/runtime/transition-chunks.js';

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
