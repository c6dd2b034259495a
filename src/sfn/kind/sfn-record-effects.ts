import type { JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { Subjects } from '../../nats/subjects.js';
import type { Retention } from '../../engine/retention.js';
import type { VisibilityPublisher } from '../../visibility/visibility-publisher.js';
import { sfnVisibilityAddress, sfnVisibilityOf, sfnVisibilityVersion, type SfnVisibilityIndex } from '../visibility/sfn-visibility-index.js';
import { executionKey, type ExecutionRecordEffects, type SfnExecutionRecord } from './execution-records.js';

export interface SfnRecordEffectsDeps {
  subjects: Subjects;
  jsm: JetStreamManager;
  /** This node's index: a change is applied at once, so this node lists it immediately. */
  index: SfnVisibilityIndex;
  publisher: VisibilityPublisher;
  retention: Retention;
  /** How long a closed execution stays (AF_SFN_RETENTION_DAYS in ms). */
  retentionMs: number;
  log: Logger;
}

/**
 * What a Step Functions execution record's changes set off: its visibility record (applied to this
 * node's index, then published to AF_VISIBILITY for every node's), and on close its retention, which
 * purges its history, its visibility record and its KV record once the retention has run out.
 */
export class SfnRecordEffects implements ExecutionRecordEffects {
  constructor(private readonly d: SfnRecordEffectsDeps) {}

  private async show(rec: SfnExecutionRecord): Promise<boolean> {
    const v = sfnVisibilityOf(rec);
    this.d.index.apply(v);
    return this.d.publisher.publish(...sfnVisibilityAddress(this.d.subjects, v), v);
  }

  /** A start: its RUNNING record is sent without waiting for the ack (the close, or a recovery, writes the execution's record again). */
  async started(rec: SfnExecutionRecord): Promise<void> {
    this.send(rec);
  }

  /** Applies the record to this node's index and sends it to every node's, without waiting for the stream's ack. */
  private send(rec: SfnExecutionRecord): void {
    const v = sfnVisibilityOf(rec);
    this.d.index.apply(v);
    this.d.publisher.send(...sfnVisibilityAddress(this.d.subjects, v), v);
  }

  async closed(rec: SfnExecutionRecord): Promise<boolean> {
    const s = this.d.subjects;
    // Sent without waiting for its ack: the retention record below is (a store down for one is down
    // for both, and a close whose retention was not recorded is told again at recovery).
    this.send(rec);
    try {
      await this.d.retention.schedule(rec.partition, s.sfnHistory(rec.partition, rec.stateMachineName, rec.name), rec.stopDate ?? rec.startDate,
        this.d.retentionMs, s.sfnVisibility(rec.stateMachineName, rec.name), { bucket: s.buckets.sfnExecutions, key: executionKey(rec.stateMachineName, rec.name) });
      return true;
    } catch (err) {
      this.d.log.warn({ err, executionArn: rec.executionArn }, 'retention of a closed execution not recorded; recovery records it');
      return false;
    }
  }

  async removed(rec: SfnExecutionRecord): Promise<void> {
    this.d.index.remove(rec.stateMachineName, rec.name);
    await this.d.jsm.streams.purge(this.d.subjects.streams.visibility, { filter: this.d.subjects.sfnVisibility(rec.stateMachineName, rec.name) })
      .catch((err: unknown) => this.d.log.warn({ err, executionArn: rec.executionArn }, 'visibility record of an execution that did not start not removed'));
  }

  async recovered(rec: SfnExecutionRecord): Promise<void> {
    const held = this.d.index.get(rec.stateMachineName, rec.name);
    if (held && sfnVisibilityVersion(held) >= sfnVisibilityVersion(sfnVisibilityOf(rec))) return;
    await this.show(rec);
  }
}
