import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { decode, encode } from '../protocol/codec.js';
import { kvToken, type Subjects } from '../nats/subjects.js';

/** A partition lease as stored at `p.<n>` in the leases bucket. */
export interface Lease {
  node: string;
  /** Epoch ms when this node acquired it (renewals keep it). */
  since: number;
  /** How many times the partition changed hands (fencing aid for logs and status). */
  epoch: number;
}

/** A node's membership record at `n.<node>`, rewritten every renewal. */
export interface Member {
  node: string;
  since: number;
  pid: number;
  /** The node's HTTP gateway, when it serves one. */
  http?: string;
}

/** A stored lease with its KV revision and when it was last written (server time). */
export interface LeaseEntry extends Lease {
  partition: number;
  revision: number;
  writtenAt: number;
}

export interface ClusterSnapshot {
  /** Live members (written within the TTL). */
  members: (Member & { writtenAt: number })[];
  /** Every stored lease, expired ones included (check with `expired`). */
  leases: Map<number, LeaseEntry>;
}

const leaseKey = (p: number) => `p.${p}`;
const memberKey = (node: string) => `n.${kvToken(node)}`;
const isCas = (e: unknown) => (e as { code?: number }).code === 10071;

/**
 * The `af_leases` KV bucket: partition leases and node membership, both kept alive by rewrites
 * within the bucket TTL (its max_age: nats-server 2.9 has no per-key TTL). Every change of a
 * lease is a create or a revision-checked update, so exactly one node wins a race.
 */
export class LeaseStore {
  constructor(readonly kv: KV, readonly ttlMs: number) {}

  static async open(nc: NatsConnection, s: Subjects, ttlMs: number, replicas: number): Promise<LeaseStore> {
    const kv = await new Kvm(nc).create(s.buckets.leases, { history: 1, ttl: ttlMs, replicas });
    return new LeaseStore(kv, ttlMs);
  }

  /** An entry counts as expired once it was not rewritten for the TTL (the bucket then drops it). */
  expired(e: { writtenAt: number }, now = Date.now()): boolean {
    return now - e.writtenAt > this.ttlMs;
  }

  async snapshot(now = Date.now()): Promise<ClusterSnapshot> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys()) keys.push(k);
    const entries = await Promise.all(keys.map((k) => this.kv.get(k)));
    const members: ClusterSnapshot['members'] = [];
    const leases = new Map<number, LeaseEntry>();
    for (const e of entries) {
      if (!e || e.operation !== 'PUT' || e.value.length === 0) continue;
      const writtenAt = e.created.getTime();
      if (e.key.startsWith('p.')) {
        const partition = Number(e.key.slice(2));
        leases.set(partition, { ...decode<Lease>(e.value), partition, revision: e.revision, writtenAt });
      } else if (e.key.startsWith('n.') && !this.expired({ writtenAt }, now)) {
        members.push({ ...decode<Member>(e.value), writtenAt });
      }
    }
    return { members, leases };
  }

  async lease(p: number): Promise<LeaseEntry | undefined> {
    const e = await this.kv.get(leaseKey(p));
    return e && e.operation === 'PUT' && e.value.length > 0 ? this.entry(p, e) : undefined;
  }

  private entry(partition: number, e: KvEntry): LeaseEntry {
    return { ...decode<Lease>(e.value), partition, revision: e.revision, writtenAt: e.created.getTime() };
  }

  /**
   * Takes a free partition (`prev` undefined) or an expired / own leftover lease (`prev` its entry):
   * a create or an update at prev's revision. Returns the new revision, or undefined when another node won.
   */
  async acquire(p: number, lease: Lease, prev: LeaseEntry | undefined): Promise<number | undefined> {
    try {
      return prev ? await this.kv.update(leaseKey(p), encode(lease), prev.revision) : await this.kv.create(leaseKey(p), encode(lease));
    } catch (e) {
      if (isCas(e)) return undefined;
      throw e;
    }
  }

  /** Rewrites a held lease; undefined when it is no longer this revision (someone else holds it). */
  async renew(p: number, lease: Lease, revision: number): Promise<number | undefined> {
    try {
      return await this.kv.update(leaseKey(p), encode(lease), revision);
    } catch (e) {
      if (isCas(e)) return undefined;
      throw e;
    }
  }

  /** Deletes a held lease so another node can take it at once (only if it is still this revision). */
  async release(p: number, revision: number): Promise<void> {
    await this.kv.delete(leaseKey(p), { previousSeq: revision }).catch((e: unknown) => { if (!isCas(e)) throw e; });
  }

  async heartbeat(m: Member): Promise<void> {
    await this.kv.put(memberKey(m.node), encode(m));
  }

  async leave(node: string): Promise<void> {
    await this.kv.delete(memberKey(node));
  }
}
