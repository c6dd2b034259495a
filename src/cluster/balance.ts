import { createHash } from 'node:crypto';

/** One partition's lease as the balancer sees it: who holds it, or nobody (free or expired). */
export interface LeaseView {
  partition: number;
  /** The holding node; undefined when the lease is free or has expired. */
  node: string | undefined;
}

export interface BalanceInput {
  /** The total partition count P. */
  partitions: number;
  /** This node's name. */
  self: string;
  /** Live nodes (membership keys not expired), including this one. */
  nodes: readonly string[];
  /** Every held lease; partitions missing here are free. */
  leases: readonly LeaseView[];
}

export interface BalancePlan {
  /** The number of partitions this node aims to own: ceil(P / live nodes). */
  target: number;
  /** Free or expired partitions to acquire, in this node's preference order. */
  take: number[];
  /** Owned partitions to hand over (stop serving, release, delete the lease). */
  give: number[];
}

/** A node's preference for a partition (rendezvous hashing): nodes racing for free leases mostly want different ones. */
export function preference(node: string, partition: number): number {
  return createHash('sha1').update(node).update('\u0000').update(String(partition)).digest().readUInt32BE(0);
}

/**
 * What this node should take and give so that each of N live nodes owns about P/N partitions.
 * Pure: the lease manager feeds it the KV state and acts on the answer.
 */
export function planBalance(input: BalanceInput): BalancePlan {
  const live = new Set(input.nodes);
  live.add(input.self);
  const target = Math.ceil(input.partitions / live.size);
  const held = new Map<number, string>();
  for (const l of input.leases) if (l.node !== undefined && l.partition < input.partitions) held.set(l.partition, l.node);
  const byPref = (a: number, b: number) => preference(input.self, b) - preference(input.self, a) || a - b;
  const mine = [...held].filter(([, n]) => n === input.self).map(([p]) => p);
  if (mine.length > target) {
    // Hand over the partitions this node likes least; keep the rest.
    const give = mine.sort(byPref).slice(target).sort((a, b) => a - b);
    return { target, take: [], give };
  }
  const free: number[] = [];
  for (let p = 0; p < input.partitions; p++) if (!held.has(p)) free.push(p);
  return { target, take: free.sort(byPref).slice(0, target - mine.length), give: [] };
}
