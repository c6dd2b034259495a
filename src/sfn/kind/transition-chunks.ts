import { MAX_TRANSITION_BYTES, type HistoryStore, type LastTransition } from '../../history/history-store.js';
import { decode, encode } from '../../protocol/codec.js';
import type { SfnStoredEvent } from './sfn-events.js';

/** Room kept for the message envelope (map headers, the `events` array header). */
const ENVELOPE_BYTES = 4096;
/** Bytes of snapshot per part message: the last part shares its message with the transition's last event (≤ 256 KiB of data plus its names). */
const PART_BYTES = MAX_TRANSITION_BYTES - 320 * 1024;

/**
 * The `extra` of a history message that is not a restore point: an earlier message of a transition
 * written over several (`part`: a slice of the encoded snapshot and book). `restore` is the
 * sequence of the last complete message before the transition, `upTo` the transition's last event
 * id: a node that finds such a message last (a crash in between) rebuilds from `restore` and
 * numbers new events after `upTo`.
 */
export interface PartialExtra { partial: true; restore: number; upTo: number; part?: Uint8Array }
/** The `extra` of the last message of a split transition: its snapshot is the parts at `parts` (sequences) plus `part`. */
export interface PartsExtra { parts: number[]; part: Uint8Array }

/** One message to append; `isPart` when its sequence goes into the last message's `parts`. */
export interface PlannedMessage { events: SfnStoredEvent[]; extra: unknown; isPart: boolean }

/**
 * Splits the events of one transition too large for one history message (a long run of Pass and
 * Choice states can record thousands in one step) into runs that each fit beside `extra`. An event
 * too large on its own stays alone in its run; the store then refuses it.
 */
export function chunkEvents(events: readonly SfnStoredEvent[], extra: unknown): SfnStoredEvent[][] {
  return chunkByBytes(events, MAX_TRANSITION_BYTES - encode(extra).length - ENVELOPE_BYTES);
}

function chunkByBytes(events: readonly SfnStoredEvent[], room: number): SfnStoredEvent[][] {
  const chunks: SfnStoredEvent[][] = [];
  let run: SfnStoredEvent[] = [];
  let size = 0;
  for (const e of events) {
    const bytes = encode(e).length;
    if (run.length > 0 && size + bytes > room) {
      chunks.push(run);
      run = [];
      size = 0;
    }
    run.push(e);
    size += bytes;
  }
  if (run.length > 0) chunks.push(run);
  return chunks;
}

/**
 * The messages of one transition (events, then the snapshot `extra`), in the order to append them.
 * One message when it fits. Otherwise the events go first in runs that fit, then the snapshot:
 * beside the last run when it fits there, else as parts (the last message names the earlier parts'
 * sequences). Only the last message is a restore point; the others say where the previous one is.
 */
export function planTransition(events: readonly SfnStoredEvent[], extra: unknown, restore: number): { leading: PlannedMessage[]; last: PlannedMessage } {
  const x = encode(extra);
  const whole = x.length + ENVELOPE_BYTES + events.reduce((n, e) => n + encode(e).length, 0);
  if (whole <= MAX_TRANSITION_BYTES) return { leading: [], last: { events: [...events], extra, isPart: false } };
  const upTo = events.at(-1)!.id;
  const partial = (part?: Uint8Array): PartialExtra => ({ partial: true, restore, upTo, ...(part ? { part } : {}) });
  const leading: PlannedMessage[] = [];
  if (x.length + ENVELOPE_BYTES <= MAX_TRANSITION_BYTES / 2) {
    // The snapshot is small: it rides with the last run of events.
    const runs = chunkByBytes(events, MAX_TRANSITION_BYTES - x.length - ENVELOPE_BYTES);
    for (const run of runs.slice(0, -1)) leading.push({ events: run, extra: partial(), isPart: false });
    return { leading, last: { events: runs.at(-1)!, extra, isPart: false } };
  }
  const runs = chunkByBytes(events.slice(0, -1), MAX_TRANSITION_BYTES - ENVELOPE_BYTES * 2);
  for (const run of runs) leading.push({ events: run, extra: partial(), isPart: false });
  let at = 0;
  for (; x.length - at > PART_BYTES; at += PART_BYTES) leading.push({ events: [], extra: partial(x.subarray(at, at + PART_BYTES)), isPart: true });
  return { leading, last: { events: [events.at(-1)!], extra: { parts: [], part: x.subarray(at) } satisfies PartsExtra, isPart: false } };
}

/** A restore point: the snapshot and book of the last complete transition, and where the history ends. */
export interface RestorePoint<X> {
  extra: X;
  /** Sequence of the last message of the subject (the next append's fence). */
  lastSeq: number;
  /** Sequence of the restore point's own message. */
  seq: number;
  /** Events of a transition cut short by a crash were numbered up to here (0: none). */
  upTo: number;
  /** The events of the last message. */
  events: LastTransition['events'];
}

/**
 * The last restore point of a subject: the last message when it is one (with its snapshot parts
 * put back together), else the one before the transition a crash cut short. Undefined when the
 * subject has none (no history, or a first transition cut short: `upTo` then says how far it got).
 */
export async function readRestorePoint<X>(store: HistoryStore, subject: string): Promise<{ point?: RestorePoint<X>; lastSeq: number; upTo: number } | undefined> {
  const last = await store.readLast(subject);
  if (!last) return undefined;
  let m: LastTransition | undefined = last;
  let upTo = 0;
  const cut = last.extra as Partial<PartialExtra> | undefined;
  if (cut?.partial) {
    upTo = cut.upTo ?? 0;
    m = cut.restore ? await store.readAt(cut.restore) : undefined;
    if (!m) return { lastSeq: last.seq, upTo };
  }
  const extra = await assemble<X>(store, m.extra);
  return { point: { extra, lastSeq: last.seq, seq: m.seq, upTo, events: m.events }, lastSeq: last.seq, upTo };
}

async function assemble<X>(store: HistoryStore, extra: unknown): Promise<X> {
  const split = extra as Partial<PartsExtra> | undefined;
  if (!split?.parts) return extra as X;
  const pieces: Uint8Array[] = [];
  for (const seq of split.parts) {
    const m = await store.readAt(seq);
    const part = (m?.extra as Partial<PartialExtra> | undefined)?.part;
    if (!part) throw new Error(`history message ${seq} does not hold a snapshot part`);
    pieces.push(part);
  }
  pieces.push(split.part!);
  return decode<X>(Buffer.concat(pieces));
}
