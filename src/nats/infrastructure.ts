import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  jetstream, jetstreamManager, RetentionPolicy, StorageType, DiscardPolicy,
  type JetStreamClient, type JetStreamManager, type StreamConfig,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { Subjects } from './subjects.js';
import { detectReplicas } from './replicas.js';
import { connectionAuth, ENGINE_INBOX_PREFIX, type NatsAuth } from './connect-options.js';
import { installRequestFastPath } from './request-fast-path.js';
import { installWriteCoalescing } from './write-coalescing.js';

/** The engine's NATS handles: one connection, JetStream, and its buckets. */
export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  registry: KV;
  runs: KV;
  /** Step Functions execution records (`x.<stateMachine>.<execution>`). */
  sfnExecutions: KV;
  subjects: Subjects;
  /** Replicas of the streams and buckets (3 on a NATS cluster of 3 or more servers). */
  replicas: number;
}

const SECOND_NS = 1_000_000_000;

/** Creates (or keeps) the streams and buckets of ARCHITECTURE's NATS layout. Idempotent. */
async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.info(cfg.name);
    await jsm.streams.update(cfg.name, cfg);
  } catch (e) {
    if ((e as { code?: number; message?: string }).message?.includes('not found')) await jsm.streams.add(cfg);
    else throw e;
  }
}

/** Connects an engine node (as the `engine` user and over TLS when `auth` says so) and ensures its streams and buckets. */
export async function openNats(servers: string, s: Subjects, opts: { name: string; replicas?: number; auth?: NatsAuth }): Promise<Nats> {
  // noAsyncTraces: the client otherwise builds an Error per request for stack traces (~7 % of the node's CPU),
  // and the fast path skips the one it builds after every answer (see request-fast-path.ts).
  installRequestFastPath();
  // One socket write per event-loop turn instead of one per handler (see write-coalescing.ts).
  installWriteCoalescing();
  // inboxPrefix: replies to the engine stay off `_INBOX.>`, the one subject workers may subscribe to.
  const nc = await connect({
    // NATS_URL may list every server of a cluster, comma-separated.
    servers: servers.split(',').map((u) => u.trim()).filter(Boolean), name: opts.name, maxReconnectAttempts: -1, reconnectTimeWait: 250, noAsyncTraces: true,
    inboxPrefix: ENGINE_INBOX_PREFIX, ...connectionAuth(servers, opts.auth),
  });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const replicas = opts.replicas ?? detectReplicas(nc);
  await ensureStream(jsm, {
    name: s.streams.history, subjects: [s.historyAll()], retention: RetentionPolicy.Limits,
    storage: StorageType.File, num_replicas: replicas, max_msgs_per_subject: -1, allow_direct: true,
    duplicate_window: 120 * SECOND_NS, allow_rollup_hdrs: false, deny_delete: false, discard: DiscardPolicy.Old,
  });
  await ensureStream(jsm, {
    name: s.streams.tasks, subjects: [s.tasksAll()], retention: RetentionPolicy.Workqueue,
    storage: StorageType.File, num_replicas: replicas, duplicate_window: 120 * SECOND_NS, allow_direct: true,
  });
  await ensureStream(jsm, {
    name: s.streams.visibility, subjects: [s.visibilityAll()], retention: RetentionPolicy.Limits,
    storage: StorageType.File, num_replicas: replicas, max_msgs_per_subject: 1, allow_direct: true,
    duplicate_window: 120 * SECOND_NS,
  });
  await ensureStream(jsm, {
    name: s.streams.retention, subjects: [s.retentionAll()], retention: RetentionPolicy.Limits,
    storage: StorageType.File, num_replicas: replicas, allow_direct: true, duplicate_window: 120 * SECOND_NS,
  });
  // Express executions' logs (written only for state machines that ask for logging), kept a week.
  await ensureStream(jsm, {
    name: s.streams.sfnLogs, subjects: [s.sfnLogAll()], retention: RetentionPolicy.Limits,
    storage: StorageType.File, num_replicas: replicas, allow_direct: true, max_age: 7 * 86_400 * SECOND_NS,
  });
  const kvm = new Kvm(nc);
  const registry = await kvm.create(s.buckets.registry, { history: 1, replicas });
  const runs = await kvm.create(s.buckets.runs, { history: 1, replicas });
  const sfnExecutions = await kvm.create(s.buckets.sfnExecutions, { history: 1, replicas });
  return { nc, js, jsm, registry, runs, sfnExecutions, subjects: s, replicas };
}
