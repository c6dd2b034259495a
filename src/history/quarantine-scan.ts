import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { readToEnd } from '../nats/read-stream.js';
import { subjects } from '../nats/subjects.js';
import { DamagedRecordError, decodeStored, type DamagedRecord, type RecordKind } from './quarantine.js';
import { isSfnHistory } from './record-shapes.js';

/** A damaged message as `actorflow quarantine list` shows it. */
export interface QuarantinedMessage extends DamagedRecord {
  bytes: number;
  /** The first bytes, printable ASCII kept, the rest as `\xNN`. */
  preview: string;
}

interface StreamPlan { stream: string; kind: RecordKind; bucket?: string; workQueue?: boolean }

/** The streams the engine stores records in, with the kind of record each holds. */
export function quarantineStreams(prefix = 'af'): StreamPlan[] {
  const s = subjects(prefix);
  return [
    { stream: s.streams.history, kind: 'history' },
    { stream: s.streams.tasks, kind: 'task', workQueue: true },
    { stream: s.streams.visibility, kind: 'visibility' },
    { stream: s.streams.retention, kind: 'retention' },
    { stream: `KV_${s.buckets.runs}`, kind: 'runs', bucket: s.buckets.runs },
    { stream: `KV_${s.buckets.registry}`, kind: 'registry', bucket: s.buckets.registry },
    { stream: `KV_${s.buckets.sfnExecutions}`, kind: 'sfn_executions', bucket: s.buckets.sfnExecutions },
  ];
}

const PREVIEW_BYTES = 48;
function preview(data: Uint8Array): string {
  let out = '';
  for (const b of data.subarray(0, PREVIEW_BYTES)) out += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return data.length > PREVIEW_BYTES ? `${out}…` : out;
}

interface Msg { subject: string; seq: number; data: Uint8Array; kvOperation?: string }

/** Every message of a stream in order: an ordered consumer, or (work queues refuse overlapping consumers) one get per message. */
async function* messages(js: JetStreamClient, jsm: JetStreamManager, plan: StreamPlan, filter?: string): AsyncGenerator<Msg> {
  const info = await jsm.streams.info(plan.stream).catch(() => undefined);
  if (!info || info.state.messages === 0) return;
  const end = info.state.last_seq;
  if (plan.workQueue) {
    for (let seq = info.state.first_seq; seq <= end;) {
      const m = await jsm.streams.getMessage(plan.stream, { seq, next_by_subj: filter ?? '>' } as unknown as { seq: number });
      if (!m) return;
      yield { subject: m.subject, seq: m.seq, data: m.data };
      seq = m.seq + 1;
    }
    return;
  }
  for await (const m of readToEnd(js, plan.stream, { filter, endSeq: end, batch: 1000 })) {
    yield { subject: m.subject, seq: m.seq, data: m.data, kvOperation: m.headers?.get('KV-Operation') || undefined };
  }
}

/** The damaged messages of one stream (optionally of one subject), checked as the engine checks them. */
async function scanStream(js: JetStreamClient, jsm: JetStreamManager, plan: StreamPlan, filter?: string): Promise<QuarantinedMessage[]> {
  const out: QuarantinedMessage[] = [];
  // SWF runs are folded from all their messages: each must continue its run's event ids.
  const nextId = new Map<string, number>();
  const broken = new Set<string>();
  for await (const m of messages(js, jsm, plan, filter)) {
    if (m.kvOperation || (plan.bucket && m.data.length === 0)) continue;
    const at = { stream: plan.stream, subject: m.subject, seq: m.seq };
    try {
      const v = decodeStored<{ events?: { id: number }[] }>(plan.kind, m.data, at);
      if (plan.kind !== 'history' || isSfnHistory(m.subject) || broken.has(m.subject)) continue;
      const want = nextId.get(m.subject) ?? 1;
      if (v.events![0]!.id !== want) throw new DamagedRecordError({ ...at, kind: 'history', reason: `its first event id is ${v.events![0]!.id}, the run's next is ${want}` });
      nextId.set(m.subject, v.events!.at(-1)!.id + 1);
    } catch (e) {
      if (!(e instanceof DamagedRecordError)) throw e;
      // Later messages of a run are judged against what the run had before the damaged one.
      out.push({ ...e.record, bytes: m.data.length, preview: preview(m.data) });
    }
  }
  return out;
}

/** Every damaged message in the engine's streams and buckets (or in one of them). */
export async function listQuarantined(nc: NatsConnection, prefix = 'af', stream?: string): Promise<QuarantinedMessage[]> {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const plans = quarantineStreams(prefix).filter((p) => stream === undefined || p.stream === stream);
  if (plans.length === 0) throw new Error(`unknown stream ${stream}: expected one of ${quarantineStreams(prefix).map((p) => p.stream).join(', ')}`);
  const out: QuarantinedMessage[] = [];
  for (const plan of plans) out.push(...await scanStream(js, jsm, plan));
  return out;
}

/**
 * Removes one damaged message: a stream message is deleted, a KV record purged (its key then reads
 * as absent). Refuses a message that is not damaged, or a KV key written again since.
 */
export async function dropQuarantined(nc: NatsConnection, prefix: string, stream: string, seq: number): Promise<QuarantinedMessage> {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const plan = quarantineStreams(prefix).find((p) => p.stream === stream);
  if (!plan) throw new Error(`unknown stream ${stream}: expected one of ${quarantineStreams(prefix).map((p) => p.stream).join(', ')}`);
  const m = await jsm.streams.getMessage(stream, { seq });
  if (!m) throw new Error(`${stream} has no message at sequence ${seq}`);
  const found = (await scanStream(js, jsm, plan, m.subject)).find((q) => q.seq === seq);
  if (!found) throw new Error(`${stream} sequence ${seq} (${m.subject}) is not damaged; refusing to drop it`);
  if (plan.bucket) {
    const key = m.subject.slice(`$KV.${plan.bucket}.`.length);
    const kv = await new Kvm(nc).open(plan.bucket);
    const cur = await kv.get(key);
    if (cur?.revision !== seq) throw new Error(`${plan.bucket} key ${key} was written again since sequence ${seq}; refusing to drop it`);
    await kv.purge(key);
  } else if (plan.workQueue) {
    await jsm.streams.deleteMessage(stream, seq, false);
  } else {
    await deleteKeepingLast(js, jsm, plan, m.subject, seq);
  }
  return found;
}

/**
 * Deletes a message. nats-server 2.9 forgets a subject's last message when that message is deleted
 * (last_by_subj then answers "not found" and the append fence expects an empty subject), so when the
 * deleted one was the last, the message before it is written again at the end (same bytes) and its
 * old copy deleted: history and retention readers find the subject's true last message again.
 */
async function deleteKeepingLast(js: JetStreamClient, jsm: JetStreamManager, plan: StreamPlan, subject: string, seq: number): Promise<void> {
  let prev: Msg | undefined;
  let last: Msg | undefined;
  for await (const m of messages(js, jsm, plan, subject)) {
    if (m.seq < seq) prev = m;
    last = m;
  }
  await jsm.streams.deleteMessage(plan.stream, seq, false);
  if (last?.seq !== seq || !prev) return;
  await js.publish(subject, prev.data);
  await jsm.streams.deleteMessage(plan.stream, prev.seq, false);
}
