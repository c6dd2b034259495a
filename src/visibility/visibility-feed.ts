import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
import { readToEnd } from '../nats/read-stream.js';
import type { Subjects } from '../nats/subjects.js';

/** Where the feed hands the records of one execution kind (a VisibilityStore). */
export interface VisibilitySink {
  /** Whether a record on this AF_VISIBILITY subject is this kind's. */
  accepts(subject: string): boolean;
  beginLoad(): void;
  apply(rec: never): void;
  finishLoad(): void;
}

/**
 * Every node's feed of AF_VISIBILITY: one read to the end of `<prefix>.vis.>` loads every record at
 * start (each kind's store buffers them and indexes in bulk once the stream is read), then a
 * consumer follows the stream. One consumer serves every execution kind: a record goes to the first sink
 * that accepts its subject.
 */
export class VisibilityFeed {
  private messages: ConsumerMessages | undefined;

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly s: Subjects,
    private readonly log: Logger, private readonly sinks: readonly VisibilitySink[], private readonly quarantine: Quarantine = UNREPORTED) {}

  /** Resolves once every record in the stream is indexed; a consumer then keeps following from there. */
  async start(): Promise<void> {
    const stream = this.s.streams.visibility;
    const filter = this.s.visibilityAll();
    for (const sink of this.sinks) sink.beginLoad();
    let loaded = 0;
    for await (const m of readToEnd(this.js, stream, { filter, batch: 2000 })) {
      this.deliver(stream, m);
      loaded = m.seq;
    }
    for (const sink of this.sinks) sink.finishLoad();
    // The live feed goes on after the last record loaded (from the start when there was none).
    const consumer = await this.js.consumers.get(stream, { filter_subjects: filter, ...(loaded > 0 ? { opt_start_seq: loaded + 1 } : {}) });
    const messages = this.messages = await consumer.consume({ max_messages: 2000 });
    void (async () => { for await (const m of messages) this.deliver(stream, m); })()
      .catch((err) => { this.log.error({ err }, 'visibility feed stopped'); });
  }

  /** A record goes to the first sink that accepts its subject; a damaged one is skipped (quarantined): the execution's next record replaces it. */
  private deliver(stream: string, m: { subject: string; seq: number; data: Uint8Array }): void {
    const sink = this.sinks.find((k) => k.accepts(m.subject));
    const rec = sink ? this.quarantine.tryDecode<object>('visibility', m.data, { stream, subject: m.subject, seq: m.seq }) : undefined;
    if (rec) sink!.apply(rec as never);
  }

  stop(): void {
    this.messages?.stop();
  }
}
