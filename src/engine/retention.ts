import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { encode } from '../protocol/codec.js';
import { readToEnd } from '../nats/read-stream.js';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
import type { Subjects } from '../nats/subjects.js';
import type { EngineClock } from './clock.js';
import { DeadlineQueue } from './deadline-queue.js';
import type { PartitionHost } from './partition-host.js';

const DAY_MS = 86_400_000;

/** A KV entry purged with a closed execution (a Step Functions execution's record). */
export interface KvEntry { bucket: string; key: string }

/** A closed execution's cleanup (any kind), kept in the stream AF_RETENTION until it is done. */
interface RetentionRecord {
  history: string;
  expireAt: number;
  /** The execution's AF_VISIBILITY subject, purged with its history. */
  visibility?: string;
  /** Purged last: while it stands, the execution's name (and so its subjects) cannot be taken again. */
  record?: KvEntry;
}

/** Milliseconds a domain keeps closed runs: "NONE" and "0" keep nothing (SWF), else N days. */
export function retentionMs(days: string | undefined): number {
  return days === undefined || days === 'NONE' ? 0 : Number(days) * DAY_MS;
}

/**
 * Removes closed executions after their retention: SWF runs after their domain's
 * workflowExecutionRetentionPeriodInDays, Step Functions executions after AF_SFN_RETENTION_DAYS.
 * Each close writes a record to `af.ret.<partition>`; the partition's owner keeps the expiries in a
 * wake-up heap (loaded again at start-up) and purges the history subject, the visibility subject
 * and the execution's KV record when it is due.
 */
export class Retention implements PartitionHost {
  private readonly due: DeadlineQueue;
  private readonly records = new Map<string, { rec: RetentionRecord; seq: number; partition: number }>();

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly s: Subjects,
    private readonly clock: EngineClock, private readonly log: Logger, private readonly quarantine: Quarantine = UNREPORTED) {
    this.due = new DeadlineQueue(clock, (id) => { void this.expire(id); });
  }

  /** Records a closed execution; its history stays readable until `closedAt + retention`. */
  async schedule(partition: number, history: string, closedAt: number, retention: number, visibility?: string, record?: KvEntry): Promise<void> {
    const rec: RetentionRecord = { history, expireAt: closedAt + retention, visibility, record };
    const ack = await this.js.publish(this.s.retention(partition), encode(rec), { msgID: `ret:${history}:${rec.expireAt}` });
    this.track(rec, ack.seq, partition);
  }

  private track(rec: RetentionRecord, seq: number, partition: number): void {
    const id = String(seq);
    this.records.set(id, { rec, seq, partition });
    this.due.push(id, rec.expireAt);
  }

  /** Loads the pending cleanups of the partitions this node owns. */
  async load(partitions: ReadonlySet<number>): Promise<number> {
    let n = 0;
    for (const p of partitions) {
      const subject = this.s.retention(p);
      // Served by the stream leader: a direct get may hit an R3 follower that does not answer (see HistoryStore).
      const last = await this.jsm.streams.getMessage(this.s.streams.retention, { last_by_subj: subject });
      if (!last) continue;
      for await (const m of readToEnd(this.js, this.s.streams.retention, { filter: subject, endSeq: last.seq, batch: 1000 })) {
        const rec = this.quarantine.tryDecode<RetentionRecord>('retention', m.data, { stream: this.s.streams.retention, subject: m.subject, seq: m.seq });
        if (rec) { this.track(rec, m.seq, p); n++; }
      }
    }
    return n;
  }

  readonly hostName = 'retention';

  /** PartitionHost: a partition gained in a cluster loads its pending cleanups. */
  recover(partitions: ReadonlySet<number>): Promise<number> {
    return this.load(partitions);
  }

  /** PartitionHost: the new owner of the partition does its cleanups. */
  async releasePartition(partition: number): Promise<void> {
    for (const [id, e] of this.records) if (e.partition === partition) this.records.delete(id);
    this.due.removeWhere((id) => !this.records.has(id));
  }

  private async expire(id: string): Promise<void> {
    const entry = this.records.get(id);
    if (!entry) return;
    this.records.delete(id);
    try {
      await this.jsm.streams.purge(this.s.streams.history, { filter: entry.rec.history });
      if (entry.rec.visibility) await this.jsm.streams.purge(this.s.streams.visibility, { filter: entry.rec.visibility });
      const kv = entry.rec.record;
      if (kv) await this.jsm.streams.purge(`KV_${kv.bucket}`, { filter: `$KV.${kv.bucket}.${kv.key}` });
      await this.jsm.streams.deleteMessage(this.s.streams.retention, entry.seq, false);
    } catch (err) {
      this.log.warn({ err, history: entry.rec.history }, 'retention cleanup failed; retrying in a minute');
      this.records.set(id, entry);
      this.due.push(id, this.clock.now() + 60_000);
    }
  }

  get pending(): number {
    return this.records.size;
  }

  stop(): void {
    this.due.stop();
  }
}
