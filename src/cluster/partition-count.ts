import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Subjects } from '../nats/subjects.js';

const KEY = 'partitions';

/**
 * The cluster's partition count P, fixed by the first node (KV `af_cluster`, key `partitions`).
 * A node configured with another count logs an error and uses the stored one: partitions are
 * hash(domain, workflowId) mod P, so every node must agree on P.
 */
export async function clusterPartitionCount(nc: NatsConnection, s: Subjects, configured: number, replicas: number, log: Logger): Promise<number> {
  const kv = await new Kvm(nc).create(s.buckets.cluster, { history: 1, replicas });
  try {
    await kv.create(KEY, new TextEncoder().encode(String(configured)));
    return configured;
  } catch (e) {
    if ((e as { code?: number }).code !== 10071) throw e;
  }
  const stored = Number(new TextDecoder().decode((await kv.get(KEY))!.value));
  if (stored !== configured) {
    log.error({ configured, stored }, 'AF_PARTITIONS differs from the count the cluster was created with; using the stored count');
  }
  return stored;
}

/** The stored partition count, or undefined before any clustered node started. */
export async function storedPartitionCount(nc: NatsConnection, s: Subjects): Promise<number | undefined> {
  const kv = await new Kvm(nc).open(s.buckets.cluster).catch(() => undefined);
  const e = await kv?.get(KEY).catch(() => null);
  return e && e.operation === 'PUT' ? Number(new TextDecoder().decode(e.value)) : undefined;
}
