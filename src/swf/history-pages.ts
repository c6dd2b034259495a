import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { Fault } from '../protocol/faults.js';
import { decode, encode, withEncoding } from '../protocol/codec.js';

// Events are immutable once persisted, so their wire form and its msgpack bytes are made once
// (every decision task of a run sends the history so far again).
const wireCache = new WeakMap<HistoryEvent, { wire: Record<string, unknown>; bytes: number }>();

function wireOf(e: HistoryEvent): { wire: Record<string, unknown>; bytes: number } {
  let w = wireCache.get(e);
  if (!w) {
    const { value: wire, bytes } = withEncoding({
      eventId: e.id,
      eventType: e.type,
      eventTimestamp: e.at / 1000,
      [`${e.type[0]!.toLowerCase()}${e.type.slice(1)}EventAttributes`]: e.attrs,
    });
    w = { wire, bytes };
    wireCache.set(e, w);
  }
  return w;
}

/** One event in the AWS shape: `<camelType>EventAttributes`, timestamp in epoch seconds. */
export function eventToWire(e: HistoryEvent): Record<string, unknown> {
  return wireOf(e).wire;
}

const DEFAULT_PAGE = 1000;
/** Pages also stop at this many encoded bytes, so a reply always fits a NATS message. */
const PAGE_BYTES = 768 * 1024;
const TOKEN_TTL_MS = 24 * 3600 * 1000;

interface PageCursor {
  /** Scope: the run (and for decision-task paging, the task attempt) the token belongs to. */
  scope: string;
  next: number;
  reverse: boolean;
  issued: number;
}

export function pageToken(c: PageCursor): string {
  return Buffer.from(encode([c.scope, c.next, c.reverse, c.issued])).toString('base64url');
}

export function readPageToken(token: string, scope: string, now: number): PageCursor {
  let v: unknown;
  try { v = decode(Buffer.from(token, 'base64url')); } catch { v = undefined; }
  if (!Array.isArray(v) || v.length !== 4 || v[0] !== scope || typeof v[1] !== 'number' || typeof v[3] !== 'number') {
    throw new Fault('ValidationException', 'Invalid nextPageToken');
  }
  if (now - v[3] > TOKEN_TTL_MS) throw new Fault('ValidationException', 'Specified token has exceeded its maximum lifetime');
  return { scope, next: v[1], reverse: v[2] === true, issued: v[3] };
}

/** Where a page reads events: a run's EventLog (reads old transitions back from JetStream), or an array. */
export interface EventSource {
  readonly length: number;
  get(id: number): Promise<HistoryEvent> | HistoryEvent;
  /** The event when it is at hand without I/O: a page then skips one await per event. */
  peek?(id: number): HistoryEvent | undefined;
}

/**
 * One page of the events 1..`upTo` (default all) of `source`. `from` is the first eventId to
 * return (counting down when reversed); the token names the next one. Only the page's events are
 * read, so paging a long history never holds all of it.
 */
export async function historyPage(source: EventSource, opts: { scope: string; pageSize?: number; reverse: boolean; from?: number; now: number; upTo?: number }):
  Promise<{ events: Record<string, unknown>[]; nextPageToken?: string }> {
  const size = opts.pageSize && opts.pageSize > 0 ? opts.pageSize : DEFAULT_PAGE;
  const n = Math.min(opts.upTo ?? source.length, source.length);
  let id = opts.from ?? (opts.reverse ? n : 1);
  const out: Record<string, unknown>[] = [];
  let bytes = 0;
  while (id >= 1 && id <= n && out.length < size) {
    const e = source.peek?.(id) ?? source.get(id);
    const w = wireOf(e instanceof Promise ? await e : e);
    bytes += w.bytes;
    if (bytes > PAGE_BYTES && out.length > 0) break;
    out.push(w.wire);
    id += opts.reverse ? -1 : 1;
  }
  const more = id >= 1 && id <= n;
  return {
    events: out,
    nextPageToken: more ? pageToken({ scope: opts.scope, next: id, reverse: opts.reverse, issued: opts.now }) : undefined,
  };
}
