import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { HistoryConflictError, HistoryStore } from '../../src/history/history-store.js';
import { openNats } from '../../src/nats/infrastructure.js';
import { subjects } from '../../src/nats/subjects.js';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

let server: NatsServerHandle;
const conns: NatsConnection[] = [];
const s = subjects('fence');

async function writer(leaderReads = false): Promise<HistoryStore> {
  const nc = await connect({ servers: server.url });
  conns.push(nc);
  return new HistoryStore(jetstream(nc), await jetstreamManager(nc), s.streams.history, leaderReads);
}

const ev = (id: number, who: string): HistoryEvent => ({ type: 'MarkerRecorded', id, at: Date.now(), attrs: { markerName: who } });

beforeAll(async () => {
  server = await startNatsServer();
  const nats = await openNats(server.url, s, { name: 'setup' });
  conns.push(nats.nc);
});
afterAll(async () => {
  for (const nc of conns) await nc.close();
  await server.stop();
});

describe('history fence (expect.lastSubjectSequence + msgID)', () => {
  it('lets exactly one of two racing writers append each transition, and the history stays linear', async () => {
    const [a, b] = [await writer(), await writer()];
    const subject = s.history(0, 'dom', 'wf.1', 'run1');
    await a.append(subject, 'run1', [ev(1, 'start')], 0, 'writer-a');
    let wins = { a: 0, b: 0 };
    for (let round = 0; round < 40; round++) {
      // Both writers read the same state, then race to append the next event.
      const [ha, hb] = await Promise.all([a.read(subject), b.read(subject)]);
      expect(ha.lastSeq).toBe(hb.lastSeq);
      const next = ha.events.length + 1;
      const results = await Promise.allSettled([
        a.append(subject, 'run1', [ev(next, `a${round}`)], ha.lastSeq, 'writer-a'),
        b.append(subject, 'run1', [ev(next, `b${round}`)], hb.lastSeq, 'writer-b'),
      ]);
      const ok = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(ok).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(HistoryConflictError);
      if (results[0].status === 'fulfilled') wins.a++; else wins.b++;
    }
    const { events } = await a.read(subject);
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(wins.a + wins.b).toBe(40);
  });

  it('rejects a stale writer whose fence is behind, and a retry with the same msgID does not write twice', async () => {
    const [a, b] = [await writer(), await writer()];
    const subject = s.history(1, 'dom', 'wf-2', 'run2');
    const seq1 = await a.append(subject, 'run2', [ev(1, 'x')], 0, 'writer-a');
    const seq2 = await a.append(subject, 'run2', [ev(2, 'x')], seq1, 'writer-a');
    // A stale writer with an older fence is refused, even for the same eventId.
    await expect(b.append(subject, 'run2', [ev(2, 'stale')], seq1, 'writer-b')).rejects.toBeInstanceOf(HistoryConflictError);
    // The same writer retrying a transition whose ack it lost gets the original sequence back.
    expect(await a.append(subject, 'run2', [ev(2, 'x')], seq1, 'writer-a')).toBe(seq2);
    const { events, lastSeq } = await b.read(subject);
    expect(events.map((e) => `${e.id}:${e.attrs.markerName}`)).toEqual(['1:x', '2:x']);
    expect(lastSeq).toBe(seq2);
  });

  it('reads an empty subject at once', async () => {
    const a = await writer();
    const t0 = Date.now();
    expect(await a.read(s.history(2, 'dom', 'none', 'none'))).toEqual({ events: [], lastSeq: 0 });
    expect(Date.now() - t0).toBeLessThan(500);
  });
});

describe('history reads', () => {
  it('read a whole history when the server drops their consumer mid-read (scan and the recovery pass)', async () => {
    const a = await writer();
    const subject = s.history(1, 'dom', 'wf.long', 'run1');
    let seq = 0;
    for (let id = 1; id <= 700; id++) seq = await a.append(subject, 'run-long', [ev(id, `e${id}`)], seq, 'writer-long');
    const jsm = await jetstreamManager(conns[0]!);
    const dropConsumers = async () => {
      for await (const c of jsm.consumers.list(s.streams.history)) await jsm.consumers.delete(s.streams.history, c.name);
    };
    // Drop the read's consumer after its first batch (200 messages) is in: the next fetch finds it gone.
    let seen = 0;
    let dropped = 0;
    const ids: number[] = [];
    const dropOnce = async (n: number) => { if (n === 150 && dropped++ === 0) await dropConsumers(); };
    const pending: Promise<void>[] = [];
    await a.scan(subject, (events) => { for (const e of events) ids.push(e.id); pending.push(dropOnce(++seen)); });
    await Promise.all(pending);
    expect(dropped).toBe(1);
    expect(ids).toEqual(Array.from({ length: 700 }, (_, i) => i + 1));

    const all: number[] = [];
    seen = 0;
    dropped = 0;
    await a.readAll(s.historyPartition(1), new Set([subject]), (_subject, events) => { for (const e of events) all.push(e.id); pending.push(dropOnce(++seen)); });
    expect(dropped).toBe(1);
    expect(all).toEqual(Array.from({ length: 700 }, (_, i) => i + 1));
  }, 60_000);
});

describe('Step Functions snapshot parts (history messages without events)', () => {
  it('are passed over when a history is read, also when one is last (a split transition cut short)', async () => {
    for (const leaderReads of [false, true]) {
      const store = await writer(leaderReads);
      const name = `exec-${leaderReads}`;
      const subject = s.sfnHistory(0, 'sm', name);
      const part = (upTo: number, restore: number) => ({ partial: true, restore, upTo, part: new Uint8Array(8) });
      const point = { snapshot: {}, book: { lastEventId: 2, last: {}, tasks: {} } };
      let seq = await store.append(subject, name, [ev(1, 'start'), ev(2, 'a')], 0, 'w', point);
      const restore = seq;
      seq = await store.append(subject, name, [ev(3, 'b')], seq, 'w', part(4, restore));
      seq = await store.append(subject, name, [], seq, 'w', part(4, restore));
      seq = await store.append(subject, name, [ev(4, 'c')], seq, 'w', { parts: [seq], part: new Uint8Array(8) });
      expect((await store.read(subject)).events.map((e) => e.id)).toEqual([1, 2, 3, 4]);
      // A crash after the first parts of the next transition: the last message holds no events.
      const last = await store.append(subject, name, [], seq, 'w', part(9, seq));
      const read = await store.read(subject);
      expect({ ids: read.events.map((e) => e.id), lastSeq: read.lastSeq }).toEqual({ ids: [1, 2, 3, 4], lastSeq: last });
      // A reader that holds the history up to `last` takes only what comes after it.
      const after = await store.append(subject, name, [ev(10, 'd')], last, 'w', { ...point, book: { ...point.book, lastEventId: 10 } });
      const newer: number[] = [];
      expect(await store.scan(subject, (events) => newer.push(...events.map((e) => e.id)), last)).toBe(after);
      expect(newer).toEqual([10]);
      expect(await store.scan(subject, () => newer.push(-1), after)).toBe(after);
      expect(newer).toEqual([10]);
    }
  });
});
