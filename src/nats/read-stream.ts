import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { YieldPoint } from './yield-point.js';

/** How a read-to-end is bounded and batched. */
export interface ReadToEndOptions {
  /** Subject filter (wildcards allowed); default every subject of the stream. */
  filter?: string;
  /** Messages fetched at once (default 200: 200 history transitions of 32 KB events are 6.4 MB). */
  batch?: number;
  /**
   * The last stream sequence to deliver, when the caller knows it (a subject's last message, read
   * with one get). Default: the end at the time of the call, from the consumer's pending count.
   */
  endSeq?: number;
  /** The first stream sequence to deliver (default the stream's first). */
  startSeq?: number;
}

/** Messages a read asks for at once, unless told otherwise. */
export const READ_BATCH = 200;
/** How often one read makes a consumer the server dropped again before it gives up. */
const CONSUMER_LOST_RETRIES = 5;
/** A fetch waits this long only when messages counted at the start were removed meanwhile. */
const FETCH_EXPIRES_MS = 5000;

/**
 * The server dropped the read's consumer: its next pull finds no responder or no consumer, or the
 * pull in flight is ended by the server's 409 "consumer deleted" (which one a read sees depends on
 * when the drop lands; Node 24's timing showed the last).
 */
const isConsumerGone = (e: unknown): boolean =>
  e instanceof Error && (e.message === 'consumer not found' || e.message === 'no responders' || e.message === 'consumer deleted');

/**
 * Every message of `stream` matching `filter` that is there when the call is made, in stream order,
 * through one ordered consumer (the one "read a stream to its end" of the code base). It ends right
 * after the last of them, without waiting a fetch expiry: an empty filter ends at once, and the end
 * is the consumer's pending count at creation (or `endSeq`), checked against each message's pending
 * count. Messages written after the call may or may not be delivered, never any after `endSeq`. A
 * consumer the server dropped in between is made again from the last message seen; the consumer
 * is deleted when the read ends, early or not. Yields to the event loop as it goes.
 */
export async function* readToEnd(js: JetStreamClient, stream: string, opts: ReadToEndOptions = {}): AsyncGenerator<JsMsg> {
  const open = (after: number) => js.consumers.get(stream, {
    ...(opts.filter === undefined ? {} : { filter_subjects: opts.filter }),
    ...(after > 0 ? { opt_start_seq: after + 1 } : opts.startSeq !== undefined ? { opt_start_seq: opts.startSeq } : {}),
  });
  let consumer = await open(0);
  // The ordered consumer is created by `get`: its info is the server's answer, pending included.
  let left = (await consumer.info(true)).num_pending;
  const end = opts.endSeq ?? Number.POSITIVE_INFINITY;
  const y = new YieldPoint();
  let seen = 0;
  let lost = 0;
  try {
    while (left > 0) {
      let got = 0;
      try {
        for await (const m of await consumer.fetch({ max_messages: Math.min(opts.batch ?? READ_BATCH, left), expires: FETCH_EXPIRES_MS })) {
          got++;
          left--;
          if (m.seq > end) return;
          seen = m.seq;
          yield m;
          if (m.seq >= end || m.info.pending === 0 || left === 0) return;
          await y.maybe();
        }
      } catch (e) {
        // The server dropped the consumer (see isConsumerGone): a new one goes on after the last message seen.
        if (!isConsumerGone(e) || ++lost > CONSUMER_LOST_RETRIES) throw e;
        await consumer.delete().catch(() => undefined);
        consumer = await open(seen);
        continue;
      }
      // A fetch that expired empty: what was counted at the start has been removed since.
      if (got === 0) return;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}
