import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjects } from '../nats/subjects.js';
import { LeaseStore } from './lease-store.js';
import { storedPartitionCount } from './partition-count.js';

export interface ClusterStatus {
  /** The partition count stored by the first clustered node (undefined: no clustered node ran yet). */
  partitions: number | undefined;
  nodes: { node: string; pid: number; http?: string; upMs: number; lastSeenMs: number; owns: number[] }[];
  leases: { partition: number; node: string | undefined; epoch: number; heldMs: number; lastRenewedMs: number; expired: boolean }[];
}

/** Reads who owns what from the KV buckets (for `actorflow cluster status` and tests). */
export async function readClusterStatus(nc: NatsConnection, prefix = 'af', now = Date.now()): Promise<ClusterStatus> {
  const s = subjects(prefix);
  // The TTL is the bucket's (its stream's max_age); the bucket is opened, never created, here. Only
  // a bucket that is not there means "no clustered node yet": a refusal (a user without engine
  // rights) or an outage is the caller's error, not an empty cluster.
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(`KV_${s.buckets.leases}`).catch((e: unknown) => {
    if (e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw e;
  });
  const partitions = await storedPartitionCount(nc, s);
  if (!info) return { partitions, nodes: [], leases: [] };
  const ttlMs = Math.round(info.config.max_age / 1e6);
  const store = new LeaseStore(await new Kvm(nc).open(s.buckets.leases), ttlMs);
  const snap = await store.snapshot(now);
  const leases = [...snap.leases.values()].sort((a, b) => a.partition - b.partition).map((l) => {
    const expired = store.expired(l, now);
    return { partition: l.partition, node: expired ? undefined : l.node, epoch: l.epoch, heldMs: now - l.since, lastRenewedMs: now - l.writtenAt, expired };
  });
  const nodes = snap.members.sort((a, b) => a.node.localeCompare(b.node)).map((m) => ({
    node: m.node, pid: m.pid, http: m.http, upMs: now - m.since, lastSeenMs: now - m.writtenAt,
    owns: leases.filter((l) => l.node === m.node).map((l) => l.partition),
  }));
  return { partitions, nodes, leases };
}

/** The status as text: one line per node, then one per partition. */
export function formatClusterStatus(st: ClusterStatus): string {
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
  const lines = [`partitions: ${st.partitions ?? 'not set (no clustered node has started)'}; nodes: ${st.nodes.length}`];
  for (const n of st.nodes) lines.push(`node ${n.node}  pid ${n.pid}  up ${sec(n.upMs)}  seen ${sec(n.lastSeenMs)} ago  owns ${n.owns.length} [${n.owns.join(',')}]${n.http ? `  ${n.http}` : ''}`);
  for (let p = 0; p < (st.partitions ?? 0); p++) {
    const l = st.leases.find((x) => x.partition === p);
    lines.push(!l || l.expired
      ? `partition ${String(p).padStart(3)}  FREE${l ? ` (lease of ${l.node ?? 'a dead node'} expired ${sec(l.lastRenewedMs)} ago)` : ''}`
      : `partition ${String(p).padStart(3)}  ${l.node}  epoch ${l.epoch}  held ${sec(l.heldMs)}  renewed ${sec(l.lastRenewedMs)} ago`);
  }
  return lines.join('\n');
}
