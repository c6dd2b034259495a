import { JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { encode } from '../protocol/codec.js';
import { readToEnd } from '../nats/read-stream.js';
import { DamagedRecordError, UNREPORTED, type Quarantine } from './quarantine.js';
import { isSfnHistory } from './record-shapes.js';
import { YieldPoint } from '../nats/yield-point.js';
import { retry } from '../protocol/retry.js';

/** JetStream error codes the store reacts to. */
export const JsCodes = { StreamWrongLastSequence: 10071 } as const;

/** Another writer appended first: the caller's view of the run is stale. */
export class HistoryConflictError extends Error {
  constructor(readonly subject: string, options?: ErrorOptions) {
    super(`history of ${subject} was appended by another writer`, options);
    this.name = 'HistoryConflictError';
  }
}

/** A transition too large for one message (NATS max_payload): nothing was written. */
export class TransitionTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`a transition of ${bytes} bytes does not fit in one history message`);
    this.name = 'TransitionTooLargeError';
  }
}

/** Stays below the default 1 MB max_payload with room for headers. */
export const MAX_TRANSITION_BYTES = 960 * 1024;

/** One stored transition: all events of one state change, in one JetStream message. */
interface Transition {
  events: HistoryEvent[];
  /** What the writer keeps beside the events (Step Functions: the root actor's snapshot and bookkeeping). */
  extra?: unknown;
}

/** The last transition of a subject, with its stream sequence (the next append's fence). */
const APPEND_ATTEMPTS = 4;
/**
 * How long an append keeps retrying (same msgID, so a retry never writes twice): long enough for an
 * R3 stream to elect a new leader after its leader died (a few seconds).
 */
const APPEND_RETRY_MS = 8000;

/**
 * Calls `append` (one HistoryStore.append, its msgID fixed) until it succeeds: at least
 * APPEND_ATTEMPTS times and for APPEND_RETRY_MS, backing off from 50 ms to 1 s (with jitter). A lost
 * fence or a transition too large is thrown at once; so is the last failure.
 */
export function appendRetrying(append: () => Promise<number>): Promise<number> {
  return retry(() => append(), {
    firstMs: 50, capMs: 1000, attempts: APPEND_ATTEMPTS, forMs: APPEND_RETRY_MS,
    retryable: (e) => !(e instanceof HistoryConflictError || e instanceof TransitionTooLargeError),
  });
}

export interface LastTransition<X = unknown> {
  events: HistoryEvent[];
  extra: X | undefined;
  seq: number;
}

/** Receives one stored transition: its events, stream sequence and stored size in bytes. */
export type TransitionSink = (events: HistoryEvent[], seq: number, bytes: number) => void;

export interface RunHistory {
  events: HistoryEvent[];
  /** Stream sequence of the last transition (0 for an empty subject): the next append's fence. */
  lastSeq: number;
}

/**
 * The event store (ARCHITECTURE decision 2): one subject per run, one message per transition,
 * fenced with `expect.lastSubjectSequence` and deduplicated with `msgID = <runId>:<firstEventId>:<writer>`.
 * The writer id is per live copy of a run: retries of one writer are deduplicated, while a second
 * writer (a stale owner, a rebuilt copy) never matches the first one's msgID and so meets the fence.
 */
export class HistoryStore {
  /**
   * `leaderReads`: read the last message of a run from the stream leader instead of a direct get.
   * On an R3 stream (nats-server 2.9) a direct get may reach a follower that no longer answers after
   * a leader change (the request times out), or one that lags behind the fence; the leader is exact.
   */
  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly stream: string,
    private readonly leaderReads = false, private readonly quarantine: Quarantine = UNREPORTED) {}

  /**
   * The one decoder of stored transitions: shape checked, and (`expectId`) continuing the run's
   * event ids. A message that does not fit is quarantined: DamagedRecordError names it.
   */
  private transition(m: { subject: string; seq: number; data: Uint8Array }, expectId?: number): Transition {
    const at = { stream: this.stream, subject: m.subject, seq: m.seq };
    const t = this.quarantine.decode<Transition>('history', m.data, at);
    // SWF runs fold every event (ids are positions); a Step Functions rebuild reads only the last message.
    if (expectId !== undefined && !isSfnHistory(m.subject) && t.events[0]!.id !== expectId) {
      const err = new DamagedRecordError({ ...at, kind: 'history', reason: `its first event id is ${t.events[0]!.id}, the run's next is ${expectId}` });
      this.quarantine.report(err);
      throw err;
    }
    return t;
  }

  /**
   * Appends one transition (with an optional `extra` payload kept beside its events); returns its
   * stream sequence. Throws HistoryConflictError when fenced off.
   */
  async append(subject: string, runId: string, events: HistoryEvent[], lastSeq: number, writer: string, extra?: unknown): Promise<number> {
    // A message without events (a part of a large Step Functions snapshot) is named by its fence.
    const msgID = `${runId}:${events[0]?.id ?? `s${lastSeq}`}:${writer}`;
    const data = encode((extra === undefined ? { events } : { events, extra }) satisfies Transition);
    if (data.length > MAX_TRANSITION_BYTES) throw new TransitionTooLargeError(data.length);
    try {
      const ack = await this.js.publish(subject, data, {
        msgID, expect: { lastSubjectSequence: lastSeq, streamName: this.stream },
      });
      return ack.seq;
    } catch (e) {
      if (!(e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence)) throw e;
      // nats-server 2.10+ checks the fence before the msgID window, so the retry of an append whose
      // ack was lost meets the fence instead of its duplicate ack (2.9 answered the duplicate). It is
      // ours when the subject's last message carries our msgID.
      const last = await this.lastOf(subject).catch(() => undefined);
      if (last?.header?.get('Nats-Msg-Id') === msgID) return last.seq;
      throw new HistoryConflictError(subject, { cause: e });
    }
  }

  /** The last transition of a subject (one get; from the stream leader when `leaderReads`), or undefined for an empty subject. */
  async readLast<X = unknown>(subject: string): Promise<LastTransition<X> | undefined> {
    const last = await this.lastOf(subject);
    if (!last) return undefined;
    const t = this.transition(last);
    return { events: t.events, extra: t.extra as X | undefined, seq: last.seq };
  }

  /** One transition by stream sequence (the earlier parts of a transition split over several messages). */
  async readAt<X = unknown>(seq: number): Promise<LastTransition<X> | undefined> {
    const m = this.leaderReads ? await this.jsm.streams.getMessage(this.stream, { seq }) : await this.jsm.direct.getMessage(this.stream, { seq });
    if (!m) return undefined;
    const t = this.transition(m);
    return { events: t.events, extra: t.extra as X | undefined, seq: m.seq };
  }

  private lastOf(subject: string) {
    return this.leaderReads
      ? this.jsm.streams.getMessage(this.stream, { last_by_subj: subject })
      : this.jsm.direct.getMessage(this.stream, { last_by_subj: subject });
  }

  private firstOf(subject: string) {
    const q = { seq: 1, next_by_subj: subject } as unknown as { seq: number };
    return this.leaderReads ? this.jsm.streams.getMessage(this.stream, q) : this.jsm.direct.getMessage(this.stream, q);
  }

  /** Reads a whole run. An empty subject answers at once (no consumer wait). */
  async read(subject: string): Promise<RunHistory> {
    const events: HistoryEvent[] = [];
    const lastSeq = await this.scan(subject, (batch) => { for (const e of batch) events.push(e); });
    return { events, lastSeq };
  }

  /**
   * Streams a run's transitions in order (with their stream sequence and stored size) without
   * holding them; returns the last sequence (0 for an empty subject). A message that does not decode,
   * fit its shape or continue the run's event ids is quarantined (DamagedRecordError, see `transition`).
   * With `afterSeq`, only the transitions after that sequence (a reader that holds the earlier ones;
   * their ids are not checked against the earlier ones).
   */
  async scan(subject: string, onTransition: TransitionSink, afterSeq = 0): Promise<number> {
    const last = await this.lastOf(subject);
    if (!last) return 0;
    if (last.seq <= afterSeq) return last.seq;
    const tail = this.transition(last);
    // A Step Functions transition too large for one message leaves part messages without events
    // (transition-chunks.ts); after a crash in the middle of one, the last message may be such a part.
    if (afterSeq === 0 && tail.events[0]?.id === 1) {
      // One transition, unless it repeats the first (a foreign write: the fence never lets the engine do that).
      const first = await this.firstOf(subject);
      if (!first || first.seq === last.seq) { onTransition(tail.events, last.seq, last.data.length); return last.seq; }
      this.transition(last, this.transition(first).events.at(-1)!.id + 1);
    }
    const next = continuity(onTransition, afterSeq === 0 ? 1 : undefined);
    if (this.leaderReads) return this.scanFromLeader(subject, last.seq, tail.events[0]?.id ?? 0, next, afterSeq + 1);
    for await (const m of readToEnd(this.js, this.stream, { filter: subject, endSeq: last.seq, ...(afterSeq > 0 ? { startSeq: afterSeq + 1 } : {}) })) {
      next(m, (expect) => this.transition(m, expect));
    }
    return last.seq;
  }

  /** The events of one stored transition, by its stream sequence (paging a long history). */
  async readTransition(seq: number): Promise<HistoryEvent[]> {
    const m = this.leaderReads ? await this.jsm.streams.getMessage(this.stream, { seq }) : await this.jsm.direct.getMessage(this.stream, { seq });
    if (!m) throw new Error(`history message ${seq} of ${this.stream} is gone`);
    return this.transition(m).events;
  }

  /**
   * A replicated run read from the stream leader, one transition per request (`next_by_subj`), with no
   * consumer: on nats-server 2.9 an ephemeral consumer of an R3 stream may be placed on a peer that
   * just died, and its creation then times out for as long as that peer is down.
   */
  private async scanFromLeader(subject: string, lastSeq: number, lastFirstId: number, next: ContinuitySink, fromSeq: number): Promise<number> {
    let lastId = 0;
    const y = new YieldPoint();
    for (let seq = fromSeq; ;) {
      await y.maybe();
      const m = await this.jsm.streams.getMessage(this.stream, { seq, next_by_subj: subject } as unknown as { seq: number });
      if (!m) throw new Error(`history of ${subject} ends before sequence ${lastSeq}`);
      lastId = next(m, (expect) => this.transition(m, expect)) ?? lastId;
      if (m.seq >= lastSeq) break;
      seq = m.seq + 1;
    }
    if (lastId < lastFirstId) throw new Error(`history of ${subject} is missing its last transition`);
    return lastSeq;
  }

  /**
   * Streams every run under a subject filter in one pass (recovery): one ordered consumer reads the
   * filter's messages up to the stream's current end, and each transition of a run in `wanted` is
   * handed over as it comes (in order per run), so no run's whole history is held here. A run with a
   * damaged message gets no more transitions after it: `onDamaged` is told once (it is quarantined).
   */
  async readAll(filter: string, wanted: ReadonlySet<string>, onTransition: (subject: string, events: HistoryEvent[], seq: number, bytes: number) => void,
    onDamaged: (subject: string, err: DamagedRecordError) => void = () => undefined): Promise<void> {
    const info = await this.jsm.streams.info(this.stream);
    const end = info.state.last_seq;
    if (end === 0 || wanted.size === 0) return;
    const nextId = new Map<string, number>();
    const damaged = new Set<string>();
    for await (const m of readToEnd(this.js, this.stream, { filter, endSeq: end })) {
      if (!wanted.has(m.subject) || damaged.has(m.subject)) continue;
      try {
        const t = this.transition(m, nextId.get(m.subject) ?? 1);
        nextId.set(m.subject, t.events.at(-1)!.id + 1);
        onTransition(m.subject, t.events, m.seq, m.data.length);
      } catch (e) {
        if (!(e instanceof DamagedRecordError)) throw e;
        damaged.add(m.subject);
        nextId.delete(m.subject);
        onDamaged(m.subject, e);
      }
    }
  }
}

type StoredMessage = { seq: number; data: Uint8Array };
/** Hands one message on after checking it continues the run; returns its last event id. */
type ContinuitySink = (m: StoredMessage, decodeAt: (expectId: number | undefined) => Transition) => number | undefined;

/**
 * A TransitionSink that checks each transition starts where the previous one ended (ids 1, 2, …);
 * from `first`, or from wherever the first transition it is handed starts when undefined.
 */
function continuity(onTransition: TransitionSink, first: number | undefined): ContinuitySink {
  let expect = first;
  return (m, decodeAt) => {
    const t = decodeAt(expect);
    // A snapshot part of a Step Functions transition holds no events: nothing to hand on.
    if (t.events.length === 0) return undefined;
    expect = t.events.at(-1)!.id + 1;
    onTransition(t.events, m.seq, m.data.length);
    return t.events.at(-1)!.id;
  };
}
