import type { NatsConnection } from '@nats-io/transport-node';
import type { Subjects } from '../nats/subjects.js';
import { LeaseStore } from './lease-store.js';

/**
 * A node started without cluster mode takes every partition. Where clustered nodes already hold
 * live leases on the same NATS, that would make two owners fight over every run (the history fence
 * keeps them correct, but they would keep rebuilding each other's work): refuse instead.
 */
export async function assertNoClusterPeers(nc: NatsConnection, s: Subjects, ttlMs: number, replicas: number, self: string): Promise<void> {
  const store = await LeaseStore.open(nc, s, ttlMs, replicas);
  const { members, leases } = await store.snapshot();
  const peers = new Set(members.filter((m) => m.node !== self).map((m) => m.node));
  for (const l of leases.values()) if (l.node !== self && !store.expired(l)) peers.add(l.node);
  if (peers.size === 0) return;
  throw new Error(`clustered engine nodes (${[...peers].sort().join(', ')}) hold partition leases on this NATS: `
    + 'start this node with AF_CLUSTER=1 to join them, or stop them first');
}
