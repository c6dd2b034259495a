import type { HistoryEvent } from '../../machines/swf/history-event.js';

/** Reads the events of one stored transition by its stream sequence. */
export type TransitionLoader = (seq: number) => Promise<HistoryEvent[]>;

/** Recent transitions kept in memory per run (besides the first event, always kept). */
export const TAIL_BYTES = 1024 * 1024;
/** Transitions read back from the stream, kept for the pages that follow. */
const READ_CACHE_BYTES = 1024 * 1024;

interface Held {
  firstId: number;
  events: HistoryEvent[];
  bytes: number;
}

/**
 * A run's history without holding all of it: the first event, an index of every transition
 * (first event id → stream sequence), the most recent transitions up to TAIL_BYTES, and a small
 * cache of transitions read back. Older events are read from JetStream by sequence when a page or
 * a lookup needs them, so a run of 25,000 events of 32 KB costs about 2 MB here, not 800 MB.
 */
export class EventLog {
  private head: HistoryEvent | undefined;
  private readonly firstIds: number[] = [];
  private readonly seqs: number[] = [];
  private readonly tail: Held[] = [];
  private tailBytes = 0;
  private readonly cache = new Map<number, Held>();
  private cacheBytes = 0;
  private count = 0;

  constructor(private readonly load: TransitionLoader) {}

  /** Event 1 (WorkflowExecutionStarted), always in memory. */
  get first(): HistoryEvent {
    return this.head!;
  }

  /** Events in the log (the id of the last one). */
  get length(): number {
    return this.count;
  }

  /** The last event. */
  get last(): HistoryEvent {
    return this.tail.at(-1)!.events.at(-1)!;
  }

  /** Adds one persisted transition (`bytes`: its stored size, or an estimate). */
  push(events: readonly HistoryEvent[], seq: number, bytes = estimateBytes(events)): void {
    if (events.length === 0) return;
    this.head ??= events[0]!;
    const firstId = events[0]!.id;
    this.firstIds.push(firstId);
    this.seqs.push(seq);
    this.count = events.at(-1)!.id;
    this.tail.push({ firstId, events: [...events], bytes });
    this.tailBytes += bytes;
    while (this.tail.length > 1 && this.tailBytes > TAIL_BYTES) this.tailBytes -= this.tail.shift()!.bytes;
  }

  /** Bytes of events held in memory (tail and read cache). */
  get heldBytes(): number {
    return this.tailBytes + this.cacheBytes;
  }

  /** The event if it is in memory now (no I/O), else undefined. */
  peek(id: number): HistoryEvent | undefined {
    if (id === 1) return this.first;
    const held = this.heldAt(id);
    return held?.events[id - held.firstId];
  }

  /** Event `id` (1-based), read from the stream when it is not in memory. */
  async get(id: number): Promise<HistoryEvent> {
    if (id < 1 || id > this.count) throw new RangeError(`no event ${id} in a history of ${this.count}`);
    const held = this.heldAt(id) ?? await this.read(this.indexOf(id));
    return held.events[id - held.firstId]!;
  }

  /** Every event (reads the whole history: for tools, not for the engine's paths). */
  async all(): Promise<HistoryEvent[]> {
    const out: HistoryEvent[] = [];
    while (out.length < this.count) out.push(await this.get(out.length + 1));
    return out;
  }

  // The tail is the last `tail.length` transitions of the index, so one binary search finds an
  // event in either (a scan of the tail made a page of a run of many small transitions quadratic).
  private heldAt(id: number): Held | undefined {
    const i = this.indexOf(id);
    const inTail = i - (this.firstIds.length - this.tail.length);
    return inTail >= 0 ? this.tail[inTail] : this.cache.get(this.firstIds[i]!);
  }

  /** Index of the transition holding event `id` (binary search on first ids). */
  private indexOf(id: number): number {
    let lo = 0;
    let hi = this.firstIds.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.firstIds[mid]! <= id) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  private async read(i: number): Promise<Held> {
    const events = await this.load(this.seqs[i]!);
    const held = { firstId: this.firstIds[i]!, events, bytes: estimateBytes(events) };
    this.cache.set(held.firstId, held);
    this.cacheBytes += held.bytes;
    for (const [k, v] of this.cache) {
      if (this.cacheBytes <= READ_CACHE_BYTES || this.cache.size === 1) break;
      this.cache.delete(k);
      this.cacheBytes -= v.bytes;
    }
    return held;
  }
}

/** About the stored size of some events: their strings plus a little per field. */
export function estimateBytes(events: readonly HistoryEvent[]): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') n += v.length + 2;
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { n += k.length + 2; walk(x); }
    else n += 9;
  };
  for (const e of events) { n += e.type.length + 24; walk(e.attrs); }
  return n;
}
