import { isSfnVisibility, type Subjects } from '../../nats/subjects.js';
import { KindVisibility, type VisibilityLayout } from '../../visibility/visibility-store.js';
import type { SfnExecutionRecord, SfnExecutionStatus } from '../kind/execution-records.js';

/**
 * One Step Functions execution as ListExecutions shows it (an ExecutionListItem, dates in epoch ms),
 * kept as the only message on `<prefix>.vis.~sfn.<stateMachine>.<execution>`.
 */
export type SfnVisibilityRecord = Pick<SfnExecutionRecord, 'executionArn' | 'stateMachineArn' | 'stateMachineName' | 'name' | 'status' | 'startDate' | 'stopDate'
  | 'stateMachineVersionArn' | 'stateMachineAliasArn' | 'mapRunArn' | 'redriveCount' | 'redriveDate'>;

/** The visibility record of an execution record. */
export function sfnVisibilityOf(rec: SfnExecutionRecord): SfnVisibilityRecord {
  const v: SfnVisibilityRecord = {
    executionArn: rec.executionArn, stateMachineArn: rec.stateMachineArn, stateMachineName: rec.stateMachineName,
    name: rec.name, status: rec.status, startDate: rec.startDate,
  };
  if (rec.stopDate !== undefined) v.stopDate = rec.stopDate;
  if (rec.stateMachineVersionArn !== undefined) v.stateMachineVersionArn = rec.stateMachineVersionArn;
  if (rec.stateMachineAliasArn !== undefined) v.stateMachineAliasArn = rec.stateMachineAliasArn;
  if (rec.mapRunArn !== undefined) v.mapRunArn = rec.mapRunArn;
  if (rec.redriveCount !== undefined) v.redriveCount = rec.redriveCount;
  if (rec.redriveDate !== undefined) v.redriveDate = rec.redriveDate;
  return v;
}

/**
 * Of two records of one name, the later start wins (a name taken again once retention purged the
 * first execution, or a redrive: its date is after every date of the attempt before), and of one
 * start the closed record.
 */
export const sfnVisibilityVersion = (r: SfnVisibilityRecord): number => (r.redriveDate ?? r.startDate) * 2 + (r.status === 'RUNNING' ? 0 : 1);

/** Where a record goes: its subject and the msgID of this version. */
export const sfnVisibilityAddress = (s: Subjects, r: SfnVisibilityRecord): [subject: string, msgID: string] =>
  [s.sfnVisibility(r.stateMachineName, r.name), `vis:${r.executionArn}:${sfnVisibilityVersion(r)}`];

/**
 * What ListExecutions asks for: one state machine's executions, of one status or all; with `via`,
 * only those started through that version or alias ARN, or by that map run.
 */
export interface SfnListQuery { stateMachineName: string; status?: string; via?: string; redriven?: boolean }

/** Whether an execution was started through `via` (a version ARN, an alias ARN) or by it (a map run ARN). */
const startedVia = (r: Rec, via: string | undefined): boolean => via === undefined || r.stateMachineVersionArn === via || r.stateMachineAliasArn === via || r.mapRunArn === via;

/** Where a page ended: the start date and name of its last item. */
export interface SfnCursor { startDate: number; name: string }

type Rec = SfnVisibilityRecord;
const str = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byStart = (a: Rec, b: Rec) => a.startDate - b.startDate || str(a.name, b.name);
const stopOf = (r: Rec) => r.stopDate ?? 0;
const byStop = (a: Rec, b: Rec) => stopOf(a) - stopOf(b) || str(a.name, b.name);
const ALL = 'all';
const CLOSED = 'closedByStop';

const LISTS: Readonly<Record<SfnExecutionStatus, readonly string[]>> = {
  RUNNING: [ALL, 'RUNNING'], SUCCEEDED: [ALL, 'SUCCEEDED', CLOSED], FAILED: [ALL, 'FAILED', CLOSED],
  TIMED_OUT: [ALL, 'TIMED_OUT', CLOSED], ABORTED: [ALL, 'ABORTED', CLOSED],
};

/** Per state machine: every execution, the executions of each status (all by start date), the closed ones by stop date. */
const SFN_LAYOUT: VisibilityLayout<Rec> = {
  group: (r) => r.stateMachineName,
  id: (r) => r.name,
  version: sfnVisibilityVersion,
  orders: { [ALL]: byStart, RUNNING: byStart, SUCCEEDED: byStart, FAILED: byStart, TIMED_OUT: byStart, ABORTED: byStart, [CLOSED]: byStop },
  listsOf: (r) => LISTS[r.status],
  closed: { list: CLOSED, at: stopOf },
};

/**
 * The node's index of Step Functions executions (fed from AF_VISIBILITY by the VisibilityFeed; this
 * node's own changes are applied at once). A page walks one sorted list from its cursor, so it stays
 * exact while executions start and close between pages; closed executions past the retention are
 * forgotten before each query (their records are purged from the stream by the owner's Retention).
 */
export class SfnVisibilityIndex extends KindVisibility<Rec> {
  constructor(private readonly now: () => number, private readonly retentionMs: number) {
    super(SFN_LAYOUT, isSfnVisibility);
  }

  /** One page, newest first (ties: names descending), after `after`; `more` says whether another page follows. */
  list(q: SfnListQuery, page: { limit: number; after?: SfnCursor }): { items: Rec[]; more: boolean } {
    this.store.prune(q.stateMachineName, this.now() - this.retentionMs);
    const items: Rec[] = [];
    const list = this.store.list(q.stateMachineName, q.status ?? ALL);
    if (!list) return { items, more: false };
    const { after } = page;
    const from = list.bound(() => false);
    const to = list.bound((r) => after === undefined || (r.startDate - after.startDate || str(r.name, after.name)) < 0);
    for (const r of list.range(from, to, true)) {
      if (!startedVia(r, q.via) || (q.redriven !== undefined && ((r.redriveCount ?? 0) > 0) !== q.redriven)) continue;
      if (items.length === page.limit) return { items, more: true };
      items.push(r);
    }
    return { items, more: false };
  }
}
