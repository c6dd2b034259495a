import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import type { HistoryStore, TransitionSink } from '../../src/history/history-store.js';
import { HistoryLogs } from '../../src/sfn/kind/history-logs.js';

/** A store of one subject's messages in memory: what HistoryLogs uses of a HistoryStore. */
function memoryStore() {
  const messages: { seq: number; events: HistoryEvent[] }[] = [];
  let seq = 100;
  const scans: number[] = [];
  const store = {
    async scan(_subject: string, sink: TransitionSink, afterSeq = 0) {
      scans.push(afterSeq);
      for (const m of messages) if (m.seq > afterSeq && m.events.length > 0) sink(m.events, m.seq, 0);
      return messages.at(-1)?.seq ?? 0;
    },
    async readTransition(s: number) { return messages.find((m) => m.seq === s)!.events; },
  } as unknown as HistoryStore;
  const append = (...ids: number[]) => messages.push({ seq: ++seq, events: ids.map((id) => ({ type: 'PassStateEntered', id, at: id, attrs: {} }) as unknown as HistoryEvent) });
  return { store, append, scans, purge: () => { messages.length = 0; } };
}

describe('HistoryLogs (the Step Functions histories a node pages)', () => {
  it('reads a history once, then only what was appended since', async () => {
    const m = memoryStore();
    const logs = new HistoryLogs(m.store);
    m.append(1, 2);
    m.append(3);
    expect((await logs.of('s', 1)).log.length).toBe(3);
    m.append(4, 5);
    const held = await logs.of('s', 1);
    expect({ length: held.log.length, ordered: held.ordered, fifth: held.log.peek(5)?.id }).toEqual({ length: 5, ordered: true, fifth: 5 });
    expect(m.scans).toEqual([0, 102]);
  });

  it('starts again after the history is removed, and tells ids that do not increase', async () => {
    const m = memoryStore();
    const logs = new HistoryLogs(m.store);
    m.append(1, 2, 3);
    expect((await logs.of('s', 1)).log.length).toBe(3);
    m.purge();
    expect((await logs.of('s', 1)).log.length).toBe(0);
    m.append(1);
    m.append(2);
    m.append(2);
    expect((await logs.of('s', 1)).ordered).toBe(false);
    // Another start of the same name is another history.
    expect((await logs.of('s', 2)).log.length).toBe(2);
  });
});
