import { decode, encode } from '../nats/codec.js';
import { Fault } from './faults.js';

/** What a task token names: one attempt of one task of one run. Opaque to users. */
export interface TaskRef {
  domain: string;
  workflowId: string;
  runId: string;
  kind: 'd' | 'a';
  scheduledEventId: number;
  startedEventId: number;
}

export function encodeTaskToken(t: TaskRef): string {
  return Buffer.from(encode([1, t.domain, t.workflowId, t.runId, t.kind, t.scheduledEventId, t.startedEventId])).toString('base64url');
}

/** Reads a token; one that was never issued by an engine is a ValidationException. */
export function decodeTaskToken(token: string, kind: 'd' | 'a'): TaskRef {
  let v: unknown;
  try {
    v = decode(Buffer.from(token, 'base64url'));
  } catch {
    throw new Fault('ValidationException', 'Invalid token');
  }
  if (!Array.isArray(v) || v.length !== 7 || v[0] !== 1 || v.slice(1, 4).some((x) => typeof x !== 'string')
    || typeof v[5] !== 'number' || typeof v[6] !== 'number') throw new Fault('ValidationException', 'Invalid token');
  if (v[4] !== kind) throw new Fault('UnknownResourceFault', `Unknown ${kind === 'd' ? 'decision' : 'activity'} task`);
  return { domain: v[1], workflowId: v[2], runId: v[3], kind, scheduledEventId: v[5], startedEventId: v[6] };
}
