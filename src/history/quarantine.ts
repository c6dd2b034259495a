import type { Logger } from 'pino';
import { Fault } from '../protocol/faults.js';
import { decode } from '../protocol/codec.js';
import { RECORD_SHAPES, type RecordKind } from './record-shapes.js';

export type { RecordKind } from './record-shapes.js';

/** Where a stored message is: its stream, subject (for KV: `$KV.<bucket>.<key>`) and sequence. */
export interface StoredAt {
  stream: string;
  subject: string;
  seq: number;
}

/** A message that does not decode, or does not fit the shape of its kind. */
export interface DamagedRecord extends StoredAt {
  kind: RecordKind;
  reason: string;
}

/** The key a check reads: the KV key of a bucket record, else the subject. */
function keyOf(at: StoredAt): string {
  return at.subject.startsWith('$KV.') ? at.subject.slice(at.subject.indexOf('.', 4) + 1) : at.subject;
}

/**
 * What callers of a damaged record get: InternalFailure naming the record and the operator command,
 * instead of an error from deep inside the decoder. It is a Fault, so both transports answer it as is.
 */
export class DamagedRecordError extends Fault {
  constructor(readonly record: DamagedRecord) {
    super('InternalFailure', `The stored ${record.kind === 'history' ? 'history' : `${record.kind} record`} at ${record.stream} sequence ${record.seq} `
      + `(${record.subject}) is damaged (${record.reason}) and quarantined; an operator can inspect it with "actorflow quarantine list" `
      + `and remove it with "actorflow quarantine drop ${record.stream} ${record.seq}"`);
  }
}

/** Decodes one stored message of a kind and checks its shape; throws DamagedRecordError when it does not fit. */
export function decodeStored<T>(kind: RecordKind, data: Uint8Array, at: StoredAt): T {
  let v: unknown;
  try {
    v = decode(data);
  } catch (e) {
    throw new DamagedRecordError({ ...at, kind, reason: `not msgpack: ${(e as Error).message}` });
  }
  const problem = RECORD_SHAPES[kind](v, keyOf(at));
  if (problem !== undefined) throw new DamagedRecordError({ ...at, kind, reason: problem });
  return v as T;
}

/**
 * The node's quarantine: every damaged record is logged once with its subject and sequence and
 * counted (actorflow_quarantined_records_total), and stays where it is for `actorflow quarantine`.
 */
export class Quarantine {
  private readonly seen = new Set<string>();

  constructor(private readonly log: Logger | undefined, private readonly count: (kind: RecordKind) => void = () => undefined) {}

  /** Logs and counts a damaged record (once per stream and sequence). */
  report(err: DamagedRecordError): void {
    const r = err.record;
    const id = `${r.stream}\u0000${r.seq}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.count(r.kind);
    this.log?.error({ ...r }, 'damaged record quarantined: left in place for "actorflow quarantine"');
  }

  /** decodeStored, reporting a damaged record before it is thrown. */
  decode<T>(kind: RecordKind, data: Uint8Array, at: StoredAt): T {
    try {
      return decodeStored<T>(kind, data, at);
    } catch (e) {
      if (e instanceof DamagedRecordError) this.report(e);
      throw e;
    }
  }

  /** decodeStored for readers that skip what is damaged: undefined (reported) instead of a throw. */
  tryDecode<T>(kind: RecordKind, data: Uint8Array, at: StoredAt): T | undefined {
    try {
      return this.decode<T>(kind, data, at);
    } catch (e) {
      if (e instanceof DamagedRecordError) return undefined;
      throw e;
    }
  }
}

/**
 * An owner op that starts a task, answering null (not startable: the poller acks the message and
 * polls on) when the task's run is damaged, instead of failing every poll of its task list. The task
 * is not lost: rebuilding the run once the damage is dropped queues its unstarted tasks again.
 */
export function skipDamagedRun<A extends unknown[], T>(start: (...args: A) => Promise<T | null>): (...args: A) => Promise<T | null> {
  return async (...args) => {
    try {
      return await start(...args);
    } catch (e) {
      if (e instanceof DamagedRecordError) return null;
      throw e;
    }
  };
}

/** For stores built outside a node (tests, tools): checks shapes, logs and counts nothing. */
export const UNREPORTED = new Quarantine(undefined);
