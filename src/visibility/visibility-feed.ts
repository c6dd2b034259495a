import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
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
 * Every node's feed of AF_VISIBILITY: an ordered consumer over `<prefix>.vis.>` loads every record
 * at start (each kind's store buffers them and indexes in bulk once the stream is read) and then
 * follows the stream. One consumer serves every execution kind: a record goes to the first sink
 * that accepts its subject.
 */
export class VisibilityFeed {
  private messages: ConsumerMessages | undefined;

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly s: Subjects,
    private readonly log: Logger, private readonly sinks: readonly VisibilitySink[], private readonly quarantine: Quarantine = UNREPORTED) {}

  /** Resolves once every record in the stream is indexed; the consumer then keeps following. */
  async start(): Promise<void> {
    const stream = this.s.streams.visibility;
    let loading = true;
    for (const sink of this.sinks) sink.beginLoad();
    const { state } = await this.jsm.streams.info(stream);
    const consumer = await this.js.consumers.get(stream, { filter_subjects: this.s.visibilityAll() });
    const messages = this.messages = await consumer.consume({ max_messages: 2000 });
    let check: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      const loaded = () => {
        loading = false;
        for (const sink of this.sinks) sink.finishLoad();
        resolve();
      };
      if (state.messages === 0) loaded();
      void (async () => {
        for await (const m of messages) {
          const sink = this.sinks.find((k) => k.accepts(m.subject));
          // A damaged record is skipped (quarantined); the execution's next record replaces it.
          const rec = sink ? this.quarantine.tryDecode<object>('visibility', m.data, { stream, subject: m.subject, seq: m.seq }) : undefined;
          if (rec) sink!.apply(rec as never);
          if (loading && m.info.pending === 0) loaded();
        }
        if (loading) reject(new Error('visibility feed ended before the index was loaded'));
      })().catch((err) => {
        this.log.error({ err }, 'visibility feed stopped');
        reject(err);
      });
      // Records purged between the stream info and the first delivery leave nothing to deliver.
      check = setInterval(() => {
        this.jsm.streams.info(stream).then((i) => { if (loading && i.state.messages === 0) loaded(); }, () => undefined);
      }, 1000);
    }).finally(() => clearInterval(check));
  }

  stop(): void {
    this.messages?.stop();
  }
}
