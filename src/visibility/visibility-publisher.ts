import type { JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { retry } from '../protocol/retry.js';
import { encode } from '../protocol/codec.js';

/**
 * Writes records to AF_VISIBILITY, one message per execution (the stream keeps the newest per
 * subject), for every execution kind. Transient failures are retried briefly; a record still not
 * written is logged and reported as false (the next change of the execution writes it again).
 */
export class VisibilityPublisher {
  constructor(private readonly js: JetStreamClient, private readonly log: Logger) {}

  async publish(subject: string, msgID: string, rec: object): Promise<boolean> {
    try {
      await retry(() => this.js.publish(subject, encode(rec), { msgID }), { firstMs: 100, capMs: 400, attempts: 4 });
      return true;
    } catch (err) {
      this.log.warn({ err, subject }, 'visibility record not written');
      return false;
    }
  }
}
