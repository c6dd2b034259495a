import { Fault, type FaultName } from './faults.js';

/**
 * The reply envelope of the NATS transports (API and partition subjects). `retryable` is the fault's
 * flag; a reply without it (an older node) gets the default for its name.
 */
export type WireReply<T = unknown> = { ok: T } | { fault: WireFault };
export interface WireFault { name: FaultName; message: string; retryable?: boolean }

export function toWire(result: unknown): WireReply {
  return { ok: result ?? {} };
}

export function faultToWire(err: unknown): WireReply {
  if (err instanceof Fault) return { fault: { name: err.name, message: err.message, retryable: err.retryable } };
  return { fault: { name: 'InternalFailure', message: 'internal error', retryable: true } };
}

export function fromWire<T>(reply: WireReply<T>): T {
  if ('fault' in reply) {
    const { name, message, retryable } = reply.fault;
    throw new Fault(name, message, retryable === undefined ? undefined : { retryable });
  }
  return reply.ok;
}
