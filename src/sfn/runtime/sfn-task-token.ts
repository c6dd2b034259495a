import { decode, encode } from '../../nats/codec.js';
import { Fault } from '../../domain/faults.js';

/** What a Step Functions task token names: one scheduling attempt of one Task state of one execution. */
export interface SfnTaskRef {
  executionArn: string;
  partition: number;
  /** The task key (`<actorId>#<n>`). */
  key: string;
}

/** Opaque to workers: base64url msgpack, versioned like the SWF task token. */
export function encodeSfnTaskToken(t: SfnTaskRef): string {
  return Buffer.from(encode([1, t.executionArn, t.partition, t.key])).toString('base64url');
}

/** Reads a token; anything an engine did not issue is InvalidToken. */
export function decodeSfnTaskToken(token: string): SfnTaskRef {
  let v: unknown;
  try {
    v = decode(Buffer.from(token, 'base64url'));
  } catch {
    throw new Fault('InvalidToken', 'Invalid Token');
  }
  if (!Array.isArray(v) || v.length !== 4 || v[0] !== 1 || typeof v[1] !== 'string' || !Number.isInteger(v[2]) || typeof v[3] !== 'string') {
    throw new Fault('InvalidToken', 'Invalid Token');
  }
  return { executionArn: v[1], partition: v[2], key: v[3] };
}
