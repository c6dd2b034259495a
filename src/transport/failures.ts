import type { Logger } from 'pino';
import { Fault } from '../protocol/faults.js';
import { NatsOutageLog, unavailableFault } from '../nats/unavailable.js';

/**
 * What a request that failed is answered with, and how it is logged; one per transport, so both
 * answer and log alike:
 * - a Fault is the answer itself (a debug line);
 * - NATS out of reach (a server restarting, a network cut) is ServiceUnavailable, 503 over HTTP,
 *   which every AWS SDK retries; logged as one warning every 10 s with the count (NatsOutageLog);
 * - anything else is a bug: InternalFailure, logged as an error with its stack.
 */
export class RequestFailures {
  private readonly outage: NatsOutageLog;

  constructor(log: Logger, now?: () => number) {
    this.outage = new NatsOutageLog(log, 'requests are answered ServiceUnavailable (503)', now);
  }

  answer(e: unknown, log: Logger, fields: { action: string; [k: string]: unknown }): Fault {
    if (e instanceof Fault) {
      log.debug({ ...fields, fault: e.name }, 'request refused');
      return e;
    }
    if (this.outage.absorbs(e, { action: fields.action })) return unavailableFault(e)!;
    log.error({ err: e, ...fields }, 'operation failed');
    return new Fault('InternalFailure', 'internal error');
  }
}
