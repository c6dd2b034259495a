import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config.js';
import { DamagedRecordError, decodeStored } from '../../src/history/quarantine.js';
import { encode } from '../../src/protocol/codec.js';
import { ReplyGuard, type DropReason } from '../../src/nats/reply-subjects.js';

describe('reply subjects the NATS API answers on', () => {
  const drops: DropReason[] = [];
  const guard = new ReplyGuard(['_INBOX', 'tenant_a.inbox'], (r) => drops.push(r), pino({ level: 'silent' }));

  it('answers client inboxes and configured per-user prefixes; drops and counts the rest', () => {
    for (const reply of ['_INBOX.abc', '_INBOX.abc.7', 'tenant_a.inbox.x.1']) expect(guard.allows('af.api.X', reply)).toBe(true);
    const bad = [undefined, '', 'af.hist.0.d.w.r', '$KV.af_runs.d.w', '_INBOX', '_INBOX.>', '_INBOX.*', '_INBOX..x', '_INBOX.a b',
      '_INBOXES.x', 'tenant_a.inboxx.y', `_INBOX.${'x'.repeat(300)}`];
    for (const reply of bad) expect(guard.allows('af.api.X', reply), String(reply)).toBe(false);
    expect(drops).toEqual(['no_reply', 'no_reply', ...Array(bad.length - 2).fill('reply_subject')]);
  });

  it('AF_API_REPLY_PREFIXES: inbox prefixes only, never an engine subject', () => {
    expect(resolveOptions({}, {}).apiReplyPrefixes).toEqual(['_INBOX']);
    expect(resolveOptions({}, { AF_API_REPLY_PREFIXES: '_INBOX, tenant_a.inbox' }).apiReplyPrefixes).toEqual(['_INBOX', 'tenant_a.inbox']);
    for (const p of ['af', 'af.hist', '$KV', '$JS.API', '_AF_ENGINE_INBOX', '_INBOX.>', 'a b', '']) {
      expect(() => resolveOptions({}, { AF_API_REPLY_PREFIXES: p || ',' }), p).toThrow(/AF_API_REPLY_PREFIXES/);
    }
  });
});

describe('stored record shapes', () => {
  const at = { stream: 'AF_HISTORY', subject: 'af.hist.0.d.w.r', seq: 7 };
  const event = (id: number) => ({ id, type: 'WorkflowExecutionStarted', at: 1, attrs: {} });

  it('accepts what the engine writes and names what does not fit', () => {
    expect(decodeStored('history', encode({ events: [event(1), event(2)] }), at)).toEqual({ events: [event(1), event(2)] });
    const problems: [string, Uint8Array, RegExp][] = [
      ['history', encode({ ok: {} }), /events is not a non-empty list/],
      ['history', encode({ events: [event(1), event(3)] }), /events\[1\]\.id does not follow/],
      ['history', encode({ events: [{ ...event(1), attrs: 'x' }] }), /events\[0\]\.attrs/],
      ['history', Uint8Array.from([0xc1, 0x00]), /not msgpack/],
      ['task', encode({ domain: 'd', workflowId: 'w', runId: 'r', partition: 'x', kind: 'd', taskList: 't', scheduledEventId: 2 }), /task\.partition/],
      ['runs', encode({ ok: {} }), /record\.domain/],
    ];
    for (const [kind, data, reason] of problems) {
      let err: unknown;
      try { decodeStored(kind as 'history', data, at); } catch (e) { err = e; }
      expect(err, String(reason)).toBeInstanceOf(DamagedRecordError);
      expect((err as DamagedRecordError).record).toMatchObject({ ...at, kind, reason: expect.stringMatching(reason) });
      expect((err as DamagedRecordError).name).toBe('InternalFailure');
    }
    // Step Functions transitions carry the snapshot and bookkeeping beside their events.
    const sfn = { ...at, subject: 'af.hist.0.~sfn.sm.x' };
    expect(() => decodeStored('history', encode({ events: [event(1)] }), sfn)).toThrow(/extra is not a map/);
    expect(decodeStored('history', encode({ events: [event(1)], extra: { snapshot: {}, book: { lastEventId: 1, last: {}, tasks: {} } } }), sfn)).toBeDefined();
  });
});
