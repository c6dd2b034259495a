import type { Logger } from 'pino';
import { Fault } from '../protocol/faults.js';
import { someCause } from './error-causes.js';

/**
 * nats.js errors that mean NATS could not be reached in time, not that the request was wrong: no
 * answer before the timeout (what every request gets while the connection is down and reconnecting),
 * no responder yet (JetStream still starting after a server restart), or a closed or draining
 * connection. nats.js may wrap them in a RequestError, so the whole cause chain is read.
 */
const UNAVAILABLE = new Set([
  'TimeoutError', 'NoResponders', 'NoRespondersError', 'ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError',
]);

export function isNatsUnavailable(e: unknown): boolean {
  return someCause(e, (c) => typeof c.name === 'string' && UNAVAILABLE.has(c.name));
}

/** AWS's words for its 503 common error. */
export const TEMPORARY_FAILURE = 'The request has failed due to a temporary failure of the server';

/** ServiceUnavailable (503, retryable) when `e` means NATS is out of reach; undefined for any other failure. */
export function unavailableFault(e: unknown): Fault | undefined {
  return isNatsUnavailable(e) ? new Fault('ServiceUnavailable', `${TEMPORARY_FAILURE}: NATS did not answer in time`, { cause: e }) : undefined;
}

/** While NATS stays away, one warning per this many milliseconds gives the count. */
const WARN_EVERY_MS = 10_000;

/**
 * Failures because NATS is out of reach, logged as one warning every 10 s with their count: in an
 * outage every request and every background loop fails alike, and a line (with a stack) for each
 * would bury the one that says what happened.
 */
export class NatsOutageLog {
  private count = 0;
  private quietUntil = 0;

  constructor(private readonly log: Logger, private readonly msg: string, private readonly now: () => number = Date.now) {}

  /** Whether `e` means NATS is out of reach; if so it is counted, and warned about at most every 10 s. */
  absorbs(e: unknown, fields: Record<string, unknown> = {}): boolean {
    if (!isNatsUnavailable(e)) return false;
    this.count++;
    const now = this.now();
    if (now < this.quietUntil) return true;
    const { name, message } = e as { name?: string; message?: string };
    this.log.warn({ ...fields, count: this.count, reason: `${name}: ${message}` }, `NATS did not answer: ${this.msg}`);
    this.count = 0;
    this.quietUntil = now + WARN_EVERY_MS;
    return true;
  }
}
