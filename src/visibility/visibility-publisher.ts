import type { JetStreamClient } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { retry } from '../protocol/retry.js';
import { encode } from '../protocol/codec.js';

/**
 * Writes records to AF_VISIBILITY, one message per execution (the stream keeps the newest per
 * subject), for every execution kind. Transient failures are retried briefly; a record still not
 * written is logged and reported as false (the next change of the execution writes it again).
 */
export class VisibilityPublisher {
  constructor(private readonly js: JetStreamClient, private readonly log: Logger, private readonly nc?: NatsConnection) {}

  /**
   * Publishes without waiting for the stream's ack (a core NATS publish with the msgID header): for a
   * record a later one supersedes and recovery writes again when missing (a Step Functions
   * execution's RUNNING record). It costs no request, no ack to parse: a third of what `publish`
   * costs the node. Without a connection it is `publish`, unawaited.
   */
  send(subject: string, msgID: string, rec: object): void {
    if (!this.nc) { void this.publish(subject, msgID, rec); return; }
    const h = headers();
    h.set('Nats-Msg-Id', msgID);
    try {
      this.nc.publish(subject, encode(rec), { headers: h });
    } catch (err) {
      this.log.warn({ err, subject }, 'visibility record not sent');
    }
  }

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
