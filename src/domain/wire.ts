import { Fault, type FaultName } from './faults.js';

/** The reply envelope of the NATS transports (API and partition subjects). */
export type WireReply<T = unknown> = { ok: T } | { fault: { name: FaultName; message: string } };

export function toWire(result: unknown): WireReply {
  return { ok: result ?? {} };
}

export function faultToWire(err: unknown): WireReply {
  if (err instanceof Fault) return { fault: { name: err.name, message: err.message } };
  return { fault: { name: 'InternalFailure', message: 'internal error' } };
}

export function fromWire<T>(reply: WireReply<T>): T {
  if ('fault' in reply) throw new Fault(reply.fault.name, reply.fault.message);
  return reply.ok;
}
