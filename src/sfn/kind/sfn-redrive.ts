import type { Logger } from 'pino';
import { Fault } from '../../protocol/faults.js';
import type { HistoryStore } from '../../history/history-store.js';
import type { EngineClock } from '../../engine/clock.js';
import { parseArn } from '../arns.js';
import type { SfnExecutionInput } from '../compile/contract.js';
import type { GraphContext } from '../compile/graph-context.js';
import { DEFAULT_HISTORY_LIMIT } from '../compile/history-limit.js';
import { redrivePointOf } from '../compile/redrive-start.js';
import type { ExecutionRecords, SfnExecutionRecord } from './execution-records.js';
import type { SfnBook, SfnTransitionExtra } from './sfn-execution.js';
import { readRestorePoint } from './transition-chunks.js';
import { unavailableFault } from '../../nats/unavailable.js';

export interface SfnRedrivePayload { executionArn: string; clientToken?: string }

/** What the root of a redriven execution starts with (beside the usual SfnExecutionInput). */
export type RedriveStart = Required<Pick<SfnExecutionInput, 'redrive' | 'redriveCount' | 'redriveTime'>>;

/** Where the redriven execution continues its history: the closed one's book and fence. */
export interface RedriveAt { book: SfnBook; lastSeq: number; restoreSeq: number }

const DAY_MS = 86_400_000;
/** AWS: an execution is redrivable for 14 days from its stop. */
export const REDRIVE_WINDOW_MS = 14 * DAY_MS;
/** AWS: an execution's maximum open time, one year, counted from its first start. */
const MAX_OPEN_MS = 365 * DAY_MS;
/** AWS: the last 10 clientTokens of an execution's redrives answer idempotently, each for 15 minutes from its first use. */
const TOKENS_KEPT = 10;
const TOKEN_MS = 15 * 60_000;

/**
 * Why a closed (or running) execution cannot be redriven, in AWS's words (DescribeExecution's
 * redriveStatusReason, ExecutionNotRedrivable's message); undefined when it can.
 */
export function notRedrivable(rec: SfnExecutionRecord, now: number, historyLimit = DEFAULT_HISTORY_LIMIT): string | undefined {
  if (rec.status === 'RUNNING' || rec.status === 'SUCCEEDED') return `Execution is ${rec.status} and cannot be redriven`;
  if ((rec.historyEvents ?? 0) >= historyLimit) return 'Execution history event limit exceeded';
  if (now - rec.startDate > MAX_OPEN_MS) return 'Execution has exceeded the max execution time';
  if (now - (rec.stopDate ?? rec.startDate) > REDRIVE_WINDOW_MS) return 'Execution redrivable period exceeded';
  return undefined;
}

export interface SfnRedriverDeps {
  records: ExecutionRecords;
  store: HistoryStore;
  clock: EngineClock;
  log: Logger;
  subject(rec: SfnExecutionRecord): string;
  /** Compiles the execution's own definition (AWS redrives with the definition the execution started with). */
  prepare(definition: string): Promise<unknown>;
  /** Records ExecutionRedriven and starts the root at the redrive point, behind the closed history; throws when it was not stored. */
  run(rec: SfnExecutionRecord, at: RedriveAt, start: RedriveStart): Promise<void>;
  historyLimit?: number;
}

/**
 * RedriveExecution on the partition owner: checks the execution may be redriven, reads where it
 * stopped from its last history message (the root's final snapshot: see redrive-start.ts), puts its
 * record back to RUNNING (redriveCount + 1, redriveDate, no stopDate, output, error or cause), then
 * continues its history in the same stream: ExecutionRedriven, then the state it stopped in. When
 * that cannot be stored, the record goes back to what it was. One redrive of an execution at a time.
 */
export class SfnRedriver {
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(private readonly d: SfnRedriverDeps) {}

  async redrive(p: SfnRedrivePayload): Promise<{ redriveDate: number }> {
    const before = this.busy.get(p.executionArn) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.redriveNow(p));
    this.busy.set(p.executionArn, mine);
    try {
      return await mine;
    } finally {
      if (this.busy.get(p.executionArn) === mine) this.busy.delete(p.executionArn);
    }
  }

  private async redriveNow(p: SfnRedrivePayload): Promise<{ redriveDate: number }> {
    const { name, stateMachineName } = parseArn(p.executionArn, 'execution', 'executionArn');
    const rec = await this.d.records.get(stateMachineName!, name);
    if (!rec || rec.executionArn !== p.executionArn) throw new Fault('ExecutionDoesNotExist', `Execution Does Not Exist: '${p.executionArn}'`);
    const now = this.d.clock.now();
    const tokens = liveTokens(rec, now);
    const seen = p.clientToken !== undefined ? tokens[p.clientToken] : undefined;
    if (seen) return { redriveDate: seen[1] };
    const reason = notRedrivable(rec, now, this.d.historyLimit);
    if (reason) throw new Fault('ExecutionNotRedrivable', reason);

    const found = await readRestorePoint<SfnTransitionExtra>(this.d.store, this.d.subject(rec));
    const point = found?.point;
    const snap = point?.extra.snapshot as { status?: string; context?: GraphContext } | undefined;
    const at = snap?.status === 'done' && snap.context ? redrivePointOf(snap.context) : undefined;
    if (!point || !at) throw new Fault('ExecutionNotRedrivable', `Execution ${rec.executionArn} has no state to redrive from`);
    // Records closed before they counted their events: the book knows.
    if (Math.max(point.extra.book.lastEventId, point.upTo) >= (this.d.historyLimit ?? DEFAULT_HISTORY_LIMIT)) {
      throw new Fault('ExecutionNotRedrivable', 'Execution history event limit exceeded');
    }
    await this.d.prepare(rec.definition);

    // Strictly after the attempt before (its visibility record is replaced by version: see sfn-visibility-index.ts).
    const redriveDate = Math.max(now, (rec.redriveDate ?? rec.startDate) + 1);
    const redriveCount = (rec.redriveCount ?? 0) + 1;
    if (p.clientToken !== undefined) tokens[p.clientToken] = [now, redriveDate];
    const { stopDate: _s, output: _o, error: _e, cause: _c, historyEvents: _h, ...open } = rec;
    const next: SfnExecutionRecord = { ...open, status: 'RUNNING', redriveCount, redriveDate, redriveTokens: lastTokens(tokens) };
    // Tasks of the attempt before are over: a late answer to one is TaskTimedOut, and none is queued again.
    const book = point.extra.book;
    const tasks = Object.fromEntries(Object.entries(book.tasks).map(([k, t]) => [k, { ...t, status: 'closed' as const, input: '' }]));
    const resumeAt: RedriveAt = { book: { ...book, lastEventId: Math.max(book.lastEventId, point.upTo), tasks }, lastSeq: point.lastSeq, restoreSeq: point.seq };

    await this.d.records.reopen(next);
    try {
      await this.d.run(next, resumeAt, { redrive: at, redriveCount, redriveTime: redriveDate });
    } catch (e) {
      const outage = unavailableFault(e);
      if (!outage) this.d.log.error({ err: e, executionArn: rec.executionArn }, 'could not redrive the execution');
      const stored = await this.d.store.readLast(this.d.subject(rec)).then((m) => m !== undefined && m.seq > point.lastSeq, () => true);
      if (!stored) await this.d.records.close(rec).catch((err) => this.d.log.error({ err, executionArn: rec.executionArn }, 'could not put back the record of a redrive that did not start'));
      throw outage ?? new Fault('InternalFailure', 'could not redrive the execution', { cause: e });
    }
    return { redriveDate };
  }
}

/** The record's clientTokens still answering (15 minutes from their first use). */
function liveTokens(rec: SfnExecutionRecord, now: number): Record<string, [number, number]> {
  return Object.fromEntries(Object.entries(rec.redriveTokens ?? {}).filter(([, [first]]) => now - first <= TOKEN_MS));
}

/** The 10 most recently first used. */
function lastTokens(tokens: Record<string, [number, number]>): Record<string, [number, number]> {
  return Object.fromEntries(Object.entries(tokens).sort((a, b) => b[1][0] - a[1][0]).slice(0, TOKENS_KEPT));
}
