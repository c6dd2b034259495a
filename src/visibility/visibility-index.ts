import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { CloseStatus } from '../../machines/execution-state.js';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
import { readToEnd } from '../nats/read-stream.js';
import type { Subjects } from '../nats/subjects.js';
import { SortedList, type Pos } from './sorted-list.js';
import type { VisibilityRecord } from './visibility-records.js';

/** At most one of these narrows a query (SWF's filter exclusivity is checked by the service). */
export type VisibilityFilter =
  | { kind: 'type'; name: string; version?: string }
  | { kind: 'tag'; tag: string }
  | { kind: 'execution'; workflowId: string }
  | { kind: 'status'; status: CloseStatus };

export interface VisibilityQuery {
  domain: string;
  open: boolean;
  /** Which timestamp `oldest`/`latest` bound (inclusive, epoch ms) and the order follows. */
  by: 'start' | 'close';
  oldest: number;
  latest?: number;
  filter?: VisibilityFilter;
}

/** Where a page ended: the time and runId of its last item. */
export interface Cursor { t: number; id: string }

type Rec = VisibilityRecord;
const runIdOf = (r: Rec) => r.execution.runId;
const startOf = (r: Rec) => r.startTimestamp;
const closeOf = (r: Rec) => r.closeTimestamp ?? 0;
const str = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byStart = (a: Rec, b: Rec) => startOf(a) - startOf(b) || str(runIdOf(a), runIdOf(b));
const byClose = (a: Rec, b: Rec) => closeOf(a) - closeOf(b) || str(runIdOf(a), runIdOf(b));

function matches(f: VisibilityFilter | undefined, r: Rec): boolean {
  if (!f) return true;
  switch (f.kind) {
    case 'type': return r.workflowType.name === f.name && (f.version === undefined || r.workflowType.version === f.version);
    case 'tag': return r.tagList?.includes(f.tag) ?? false;
    case 'execution': return r.execution.workflowId === f.workflowId;
    case 'status': return r.closeStatus === f.status;
  }
}

/** One domain's runs: open ones by start time, closed ones by start and by close time. */
class DomainRuns {
  readonly runs = new Map<string, Rec>();
  constructor(
    readonly open = new SortedList<Rec>(byStart),
    readonly closedByStart = new SortedList<Rec>(byStart),
    readonly closedByClose = new SortedList<Rec>(byClose),
  ) {}

  static bulk(recs: Rec[]): DomainRuns {
    const open = recs.filter((r) => r.executionStatus === 'OPEN').sort(byStart);
    const closed = recs.filter((r) => r.executionStatus === 'CLOSED');
    const d = new DomainRuns(SortedList.fromSorted(byStart, open), SortedList.fromSorted(byStart, [...closed].sort(byStart)),
      SortedList.fromSorted(byClose, closed.sort(byClose)));
    for (const r of recs) d.runs.set(runIdOf(r), r);
    return d;
  }

  add(r: Rec): void {
    this.runs.set(runIdOf(r), r);
    if (r.executionStatus === 'OPEN') this.open.insert(r);
    else { this.closedByStart.insert(r); this.closedByClose.insert(r); }
  }

  drop(r: Rec): void {
    this.runs.delete(runIdOf(r));
    if (r.executionStatus === 'OPEN') this.open.delete(r);
    else { this.closedByStart.delete(r); this.closedByClose.delete(r); }
  }
}

/**
 * Every node's in-memory view of AF_VISIBILITY: one read to the end of `af.vis.>` loads all
 * records at start, then an ordered consumer follows the stream from there; the node's own writes are applied at once, so it
 * reads them back immediately. Queries walk per-domain lists kept sorted by time (no sort per query).
 */
export class VisibilityIndex {
  private readonly domains = new Map<string, DomainRuns>();
  /** Records read while the initial load runs (latest per run), indexed in bulk once it ends. */
  private buffer: Map<string, Rec> | null = null;
  private messages: ConsumerMessages | undefined;

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager,
    private readonly s: Subjects, private readonly log: Logger, private readonly quarantine: Quarantine = UNREPORTED) {}

  /** Resolves once every record in the stream is indexed; a consumer then keeps following. */
  async start(): Promise<number> {
    const stream = this.s.streams.visibility;
    const filter = this.s.visibilityAll();
    this.buffer = new Map();
    let loaded = 0;
    for await (const m of readToEnd(this.js, stream, { filter, batch: 2000 })) {
      this.applyStored(m);
      loaded = m.seq;
    }
    this.finishLoad();
    // The live feed goes on after the last record loaded (from the start when there was none).
    const consumer = await this.js.consumers.get(stream, { filter_subjects: filter, ...(loaded > 0 ? { opt_start_seq: loaded + 1 } : {}) });
    const messages = this.messages = await consumer.consume({ max_messages: 2000 });
    void (async () => { for await (const m of messages) this.applyStored(m); })()
      .catch((err) => { this.log.error({ err }, 'visibility feed stopped'); });
    return this.size;
  }

  /** A stored record; a damaged one is skipped (quarantined): the run's next record replaces it. */
  private applyStored(m: { subject: string; seq: number; data: Uint8Array }): void {
    const rec = this.quarantine.tryDecode<Rec>('visibility', m.data, { stream: this.s.streams.visibility, subject: m.subject, seq: m.seq });
    if (rec) this.apply(rec);
  }

  stop(): void {
    this.messages?.stop();
  }

  private finishLoad(): void {
    const buffered = this.buffer;
    if (!buffered) return;
    this.buffer = null;
    const byDomain = new Map<string, Rec[]>();
    for (const r of buffered.values()) {
      const list = byDomain.get(r.domain);
      if (list) list.push(r);
      else byDomain.set(r.domain, [r]);
    }
    for (const [domain, recs] of byDomain) {
      if (this.domains.has(domain)) for (const r of recs) this.apply(r);
      else this.domains.set(domain, DomainRuns.bulk(recs));
    }
  }

  get size(): number {
    let n = 0;
    for (const d of this.domains.values()) n += d.runs.size;
    return n + (this.buffer?.size ?? 0);
  }

  get(domain: string, runId: string): Rec | undefined {
    return this.buffer?.get(`${domain}\u0000${runId}`) ?? this.domains.get(domain)?.runs.get(runId);
  }

  /** Adds or replaces a run's record; an older version than the one held is ignored. */
  apply(rec: Rec): void {
    const runId = runIdOf(rec);
    if (this.buffer) {
      const k = `${rec.domain}\u0000${runId}`;
      const cur = this.buffer.get(k);
      if (!cur || cur.version < rec.version) this.buffer.set(k, rec);
      return;
    }
    let d = this.domains.get(rec.domain);
    if (!d) this.domains.set(rec.domain, d = new DomainRuns());
    const cur = d.runs.get(runId);
    if (cur) {
      if (cur.version >= rec.version) return;
      d.drop(cur);
    }
    d.add(rec);
  }

  remove(domain: string, runId: string): void {
    const d = this.domains.get(domain);
    const cur = d?.runs.get(runId);
    if (cur) d!.drop(cur);
  }

  /** Forgets the domain's runs that closed at or before `cutoff` (their retention ran out). */
  prune(domain: string, cutoff: number): number {
    const d = this.domains.get(domain);
    let n = 0;
    for (let r = d?.closedByClose.first(); d && r && closeOf(r) <= cutoff; r = d.closedByClose.first()) { d.drop(r); n++; }
    return n;
  }

  /** The query's range in the list it reads: [from, to) in ascending time order. */
  private range(q: VisibilityQuery, reverse: boolean, after?: Cursor): { list: SortedList<Rec>; from: Pos; to: Pos } | undefined {
    const d = this.domains.get(q.domain);
    if (!d) return undefined;
    const list = q.open ? d.open : q.by === 'start' ? d.closedByStart : d.closedByClose;
    const t = q.by === 'start' ? startOf : closeOf;
    const key = (r: Rec, c: Cursor) => t(r) - c.t || str(runIdOf(r), c.id);
    // Before `from`: older than the range, or (oldest first) already paged past the cursor.
    const from = list.bound((r) => t(r) < q.oldest || (after !== undefined && reverse && key(r, after) <= 0));
    // From `to` on: newer than the range, or (newest first) already paged past the cursor.
    const to = list.bound((r) => (q.latest === undefined || t(r) <= q.latest) && (after === undefined || reverse || key(r, after) < 0));
    return { list, from, to };
  }

  /** One page, newest first unless `reverse`; `more` says whether another page follows. */
  list(q: VisibilityQuery, page: { reverse: boolean; limit: number; after?: Cursor }): { items: Rec[]; more: boolean } {
    const items: Rec[] = [];
    const range = this.range(q, page.reverse, page.after);
    if (!range) return { items, more: false };
    for (const r of range.list.range(range.from, range.to, !page.reverse)) {
      if (!matches(q.filter, r)) continue;
      if (items.length === page.limit) return { items, more: true };
      items.push(r);
    }
    return { items, more: false };
  }

  count(q: VisibilityQuery): number {
    const range = this.range(q, false);
    if (!range) return 0;
    if (!q.filter) return range.list.count(range.from, range.to);
    let n = 0;
    for (const r of range.list.range(range.from, range.to, false)) if (matches(q.filter, r)) n++;
    return n;
  }
}
