import { randomBytes } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { TOKEN_KEY_BYTES } from '../engine/task-token.js';
import type { Subjects } from '../nats/subjects.js';

const KEY = 'task-token-key';

/**
 * The cluster's task-token key: made once by the first node (KV `af_cluster`, create-if-absent, so
 * racing nodes agree on the winner's) and read by every node after, so a token from one node works on
 * every other and after restarts. Only the engine NATS user may read KV; workers never see the key.
 */
export async function clusterTaskTokenKey(nc: NatsConnection, s: Subjects, replicas: number): Promise<Uint8Array> {
  const kv = await new Kvm(nc).create(s.buckets.cluster, { history: 1, replicas });
  try {
    await kv.create(KEY, randomBytes(TOKEN_KEY_BYTES));
  } catch (e) {
    if ((e as { code?: number }).code !== 10071) throw e;
  }
  const stored = await kv.get(KEY);
  if (!stored || stored.operation !== 'PUT' || stored.value.length < TOKEN_KEY_BYTES) {
    throw new Error(`KV ${s.buckets.cluster} holds no usable ${KEY}: delete the key so that a node makes a new one`);
  }
  return stored.value;
}
