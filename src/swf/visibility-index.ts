import type { CloseStatus } from '../../machines/swf/execution-state.js';
import { isSfnVisibility } from '../nats/subjects.js';
import type { SortedList, Pos } from '../visibility/sorted-list.js';
import type { VisibilityRecord } from './visibility-records.js';
import { KindVisibility, type VisibilityLayout } from '../visibility/visibility-store.js';

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

const OPEN_LISTS = ['open'] as const;
const CLOSED_LISTS = ['closedByStart', 'closedByClose'] as const;
/** SWF's layout: per domain, open runs by start time, closed ones by start and by close time. */
const SWF_LAYOUT: VisibilityLayout<Rec> = {
  group: (r) => r.domain,
  id: runIdOf,
  version: (r) => r.version,
  orders: { open: byStart, closedByStart: byStart, closedByClose: byClose },
  listsOf: (r) => (r.executionStatus === 'OPEN' ? OPEN_LISTS : CLOSED_LISTS),
  closed: { list: 'closedByClose', at: closeOf },
};

/**
 * The node's index of SWF runs (fed from AF_VISIBILITY by the VisibilityFeed; the node's own writes
 * are applied at once, so it reads them back immediately). Queries walk per-domain lists kept
 * sorted by time (no sort per query).
 */
export class VisibilityIndex extends KindVisibility<Rec> {
  constructor() {
    // Every AF_VISIBILITY record that is not a Step Functions one.
    super(SWF_LAYOUT, (subject) => !isSfnVisibility(subject));
  }

  /** Forgets the domain's runs that closed at or before `cutoff` (their retention ran out). */
  prune(domain: string, cutoff: number): number {
    return this.store.prune(domain, cutoff);
  }

  /** The query's range in the list it reads: [from, to) in ascending time order. */
  private range(q: VisibilityQuery, reverse: boolean, after?: Cursor): { list: SortedList<Rec>; from: Pos; to: Pos } | undefined {
    const list = this.store.list(q.domain, q.open ? 'open' : q.by === 'start' ? 'closedByStart' : 'closedByClose');
    if (!list) return undefined;
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
