import { JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { HistoryEvent } from '../../machines/history-event.js';
import { decode, encode } from '../nats/codec.js';

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
export interface LastTransition<X = unknown> {
  events: HistoryEvent[];
  extra: X | undefined;
  seq: number;
}

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
    private readonly leaderReads = false) {}

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
      if (e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence) throw new HistoryConflictError(subject, { cause: e });
      throw e;
    }
  }

  /** The last transition of a subject (one get; from the stream leader when `leaderReads`), or undefined for an empty subject. */
  async readLast<X = unknown>(subject: string): Promise<LastTransition<X> | undefined> {
    const last = await this.lastOf(subject);
    if (!last) return undefined;
    const t = decode<Transition>(last.data);
    return { events: t.events, extra: t.extra as X | undefined, seq: last.seq };
  }

  /** One transition by stream sequence (the earlier parts of a transition split over several messages). */
  async readAt<X = unknown>(seq: number): Promise<LastTransition<X> | undefined> {
    const m = this.leaderReads ? await this.jsm.streams.getMessage(this.stream, { seq }) : await this.jsm.direct.getMessage(this.stream, { seq });
    if (!m) return undefined;
    const t = decode<Transition>(m.data);
    return { events: t.events, extra: t.extra as X | undefined, seq: m.seq };
  }

  private lastOf(subject: string) {
    return this.leaderReads
      ? this.jsm.streams.getMessage(this.stream, { last_by_subj: subject })
      : this.jsm.direct.getMessage(this.stream, { last_by_subj: subject });
  }

  /** Reads a whole run. An empty subject answers at once (no consumer wait). */
  async read(subject: string): Promise<RunHistory> {
    const last = await this.lastOf(subject);
    if (!last) return { events: [], lastSeq: 0 };
    if (last.seq !== undefined && (decode<Transition>(last.data).events[0]?.id ?? 0) === 1) {
      return { events: decode<Transition>(last.data).events, lastSeq: last.seq };
    }
    if (this.leaderReads) return this.readFromLeader(subject, last.seq, decode<Transition>(last.data).events[0]!.id);
    const events: HistoryEvent[] = [];
    const consumer = await this.js.consumers.get(this.stream, { filter_subjects: subject });
    try {
      while (true) {
        const batch = await consumer.fetch({ max_messages: 1000, expires: 5000 });
        let done = false;
        for await (const m of batch) {
          events.push(...decode<Transition>(m.data).events);
          if (m.seq >= last.seq) { done = true; break; }
        }
        if (done) break;
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
    return { events, lastSeq: last.seq };
  }

  /**
   * A replicated run read from the stream leader, one transition per request (`next_by_subj`), with no
   * consumer: on nats-server 2.9 an ephemeral consumer of an R3 stream may be placed on a peer that
   * just died, and its creation then times out for as long as that peer is down.
   */
  private async readFromLeader(subject: string, lastSeq: number, lastFirstId: number): Promise<RunHistory> {
    const events: HistoryEvent[] = [];
    for (let seq = 1; ;) {
      const m = await this.jsm.streams.getMessage(this.stream, { seq, next_by_subj: subject } as unknown as { seq: number });
      if (!m) throw new Error(`history of ${subject} ends before sequence ${lastSeq}`);
      events.push(...decode<Transition>(m.data).events);
      if (m.seq >= lastSeq) break;
      seq = m.seq + 1;
    }
    if (events.at(-1)!.id < lastFirstId) throw new Error(`history of ${subject} is missing its last transition`);
    return { events, lastSeq };
  }

  /**
   * Reads every run under a subject filter in one pass (recovery): one ordered consumer streams the
   * filter's messages up to the stream's current end, and the runs in `wanted` are handed over whole.
   */
  async readAll(filter: string, wanted: ReadonlySet<string>, onRun: (subject: string, history: RunHistory) => void): Promise<void> {
    const info = await this.jsm.streams.info(this.stream);
    const end = info.state.last_seq;
    if (end === 0 || wanted.size === 0) return;
    const runs = new Map<string, RunHistory>();
    const consumer = await this.js.consumers.get(this.stream, { filter_subjects: filter });
    try {
      let done = false;
      while (!done) {
        const batch = await consumer.fetch({ max_messages: 10_000, expires: 2000 });
        let got = 0;
        for await (const m of batch) {
          got++;
          if (wanted.has(m.subject)) {
            let h = runs.get(m.subject);
            if (!h) { h = { events: [], lastSeq: 0 }; runs.set(m.subject, h); }
            h.events.push(...decode<Transition>(m.data).events);
            h.lastSeq = m.seq;
          }
          if (m.seq >= end || m.info.pending === 0) { done = true; break; }
        }
        if (got === 0) break;
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
    for (const [subject, h] of runs) onRun(subject, h);
  }
}
