import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { Fault, faultStatus } from '../../src/protocol/faults.js';
import { faultToWire } from '../../src/protocol/wire.js';
import { isNatsUnavailable, NatsOutageLog, unavailableFault } from '../../src/nats/unavailable.js';
import { RequestFailures } from '../../src/transport/failures.js';
import { capturedLogger } from '../helpers/captured-log.js';

function captured(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const { logger, lines } = capturedLogger('debug');
  return { log: logger, lines };
}

const named = (name: string, message = name, cause?: unknown) => Object.assign(new Error(message, { cause }), { name });

describe('isNatsUnavailable', () => {
  it('knows the nats.js errors of an unreachable server, also wrapped in a RequestError', () => {
    for (const name of ['TimeoutError', 'NoResponders', 'ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError']) {
      expect(isNatsUnavailable(named(name)), name).toBe(true);
    }
    expect(isNatsUnavailable(named('RequestError', 'no responders', named('NoResponders')))).toBe(true);
  });

  it('leaves everything else to be a bug or a fault', () => {
    for (const e of [new TypeError('x is undefined'), named('RequestError', 'bad'), named('JetStreamApiError'), new Fault('ValidationException', 'v'), undefined, 'timeout']) {
      expect(isNatsUnavailable(e)).toBe(false);
    }
  });
});

describe('unavailableFault', () => {
  it('is ServiceUnavailable for NATS out of reach, nothing for another failure', () => {
    const timeout = named('TimeoutError', 'timeout');
    const f = unavailableFault(named('RequestError', 'request failed', timeout));
    expect(f && { name: f.name, retryable: f.retryable, status: faultStatus(f.name), message: f.message }).toEqual({
      name: 'ServiceUnavailable', retryable: true, status: 503,
      message: 'The request has failed due to a temporary failure of the server: NATS did not answer in time',
    });
    expect(unavailableFault(new TypeError('x is undefined'))).toBeUndefined();
    expect(unavailableFault(new Fault('ValidationException', 'v'))).toBeUndefined();
  });
});

describe('NatsOutageLog', () => {
  it('warns once per 10 s with the count of the failures since the last warning', () => {
    const { log, lines } = captured();
    let now = 1_000;
    const outage = new NatsOutageLog(log, 'feeds keep trying', () => now);
    for (let i = 0; i < 5; i++) { expect(outage.absorbs(named('TimeoutError', 'timeout'))).toBe(true); now += 1_000; }
    now += 6_000;
    expect(outage.absorbs(named('TimeoutError', 'timeout'))).toBe(true);
    expect(outage.absorbs(new Error('bug'))).toBe(false);
    expect(lines().map(({ level, msg, count, reason }) => ({ level, msg, count, reason }))).toEqual([
      { level: 40, msg: 'NATS did not answer: feeds keep trying', count: 1, reason: 'TimeoutError: timeout' },
      { level: 40, msg: 'NATS did not answer: feeds keep trying', count: 5, reason: 'TimeoutError: timeout' },
    ]);
  });
});

describe('RequestFailures', () => {
  it('answers a fault as itself, NATS out of reach as ServiceUnavailable (503, retryable), anything else as InternalFailure', () => {
    const { log, lines } = captured();
    const failures = new RequestFailures(log, () => 0);
    const refused = new Fault('UnknownResourceFault', 'Unknown domain: d');
    expect(failures.answer(refused, log, { action: 'DescribeDomain' })).toBe(refused);

    const unavailable = failures.answer(named('TimeoutError', 'timeout'), log, { action: 'RegisterDomain' });
    expect({ name: unavailable.name, message: unavailable.message, retryable: unavailable.retryable, status: faultStatus(unavailable.name) }).toEqual({
      name: 'ServiceUnavailable', message: 'The request has failed due to a temporary failure of the server: NATS did not answer in time', retryable: true, status: 503,
    });
    expect(faultToWire(unavailable)).toEqual({ fault: { name: 'ServiceUnavailable', message: unavailable.message, retryable: true } });

    const bug = failures.answer(new TypeError('x is undefined'), log, { action: 'StartWorkflowExecution' });
    expect({ name: bug.name, message: bug.message, status: faultStatus(bug.name) }).toEqual({ name: 'InternalFailure', message: 'internal error', status: 500 });

    expect(lines().map(({ level, msg, action }) => ({ level, msg, action }))).toEqual([
      { level: 20, msg: 'request refused', action: 'DescribeDomain' },
      { level: 40, msg: 'NATS did not answer: requests are answered ServiceUnavailable (503)', action: 'RegisterDomain' },
      { level: 50, msg: 'operation failed', action: 'StartWorkflowExecution' },
    ]);
    expect(lines()[2]!.err).toMatchObject({ type: 'TypeError', message: 'x is undefined' });
  });
});
