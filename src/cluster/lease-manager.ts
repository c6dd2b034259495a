import { KvWatchInclude } from '@nats-io/kv';
import type { Logger } from 'pino';
import type { PartitionHost } from '../engine/partition-host.js';
import { RecoveryProgress } from '../engine/recovery-progress.js';
import { planBalance } from './balance.js';
import { ClusterMetrics, type OwnedLeases } from './cluster-metrics.js';
import type { Registry } from 'prom-client';
import type { Lease, LeaseEntry, LeaseStore } from './lease-store.js';

/** Where a partition's requests are served (the Router): on after recovery, off before release. */
export interface PartitionServer {
  serve(p: number): void;
  release(p: number): void;
}

export interface LeaseManagerOptions {
  node: string;
  partitions: number;
  /** Renew leases and membership this often (ms); well within the bucket TTL. */
  renewMs: number;
  /** The node's HTTP gateway URL once it listens, shown by `actorflow cluster status`. */
  httpUrl?: () => string | undefined;
  /** Where the cluster metrics (partitions owned, lease changes) are registered. */
  metrics?: Registry;
}

interface Held {
  lease: Lease;
  revision: number;
  /** Client time of the last successful write (acquire or renew). */
  renewedAt: number;
  /** Serving: recovery finished and the router answers for it. */
  serving: boolean;
}

/**
 * Partition ownership across nodes (ARCHITECTURE decision 6). Every `renewMs` the node rewrites
 * its membership and its leases, then balances: with N live nodes each aims at ceil(P/N)
 * partitions, takes free or expired leases (CAS), rebuilds them on every PartitionHost and only
 * then serves them; a node over its share hands partitions over (stop serving, release on every
 * host, delete the lease). A lease it cannot renew, or finds held by another node, is dropped at once.
 */
export class LeaseManager implements OwnedLeases {
  private readonly held = new Map<number, Held>();
  /** The last lease seen per partition: an expired lease leaves the bucket (max_age), yet the takeover is logged with it. */
  private readonly lastSeen = new Map<number, LeaseEntry>();
  private timer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private watcher: { stop(): void } | undefined;
  private stopped = false;
  private readonly startedAt = Date.now();
  private readonly metrics: ClusterMetrics | undefined;

  constructor(
    private readonly store: LeaseStore,
    private readonly hosts: readonly PartitionHost[],
    private readonly server: PartitionServer,
    private readonly opts: { -readonly [K in keyof LeaseManagerOptions]: LeaseManagerOptions[K] },
    private readonly log: Logger,
  ) {
    this.metrics = opts.metrics ? new ClusterMetrics(opts.metrics, this) : undefined;
  }

  /** Joins the cluster and takes this node's first share (recovered and served on return). */
  async start(): Promise<void> {
    // Renewals run on their own clock: a balancing round that rebuilds a large partition can take
    // longer than the lease TTL, and the leases already held must not expire meanwhile.
    this.renewTimer = setInterval(() => { void this.renew(); }, this.opts.renewMs);
    await this.tick();
    this.timer = setInterval(() => { void this.tick(); }, this.opts.renewMs);
    // A lease deleted by a graceful hand-over is taken at once, not at the next round.
    const w = await this.store.kv.watch({ key: 'p.>', include: KvWatchInclude.UpdatesOnly });
    this.watcher = w;
    void (async () => {
      for await (const e of w) if (e.operation !== 'PUT') void this.tick();
    })().catch(() => undefined);
  }

  /** Partitions served here, with the epoch ms each lease was acquired. */
  ownedSince(): ReadonlyMap<number, number> {
    return new Map([...this.held].filter(([, h]) => h.serving).map(([p, h]) => [p, h.lease.since]));
  }

  /** Partitions leased here but not yet rebuilt on every host (`/readyz` is 503 meanwhile). */
  pendingPartitions(): number {
    let n = 0;
    for (const h of this.held.values()) if (!h.serving) n++;
    return n;
  }

  /** One renewal of membership and every held lease at a time (a slow one skips the next beat). */
  private renew(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.renewing ??= this.renewAll()
      .catch((err: unknown) => this.log.warn({ err }, 'lease renewal failed'))
      .finally(() => { this.renewing = undefined; });
    return this.renewing;
  }

  /** One round: renew, then balance. Rounds never overlap (renewals go on during a long recovery). */
  tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        await this.round().catch((err: unknown) => this.log.warn({ err }, 'lease round failed'));
      } while (this.again && !this.stopped);
    })().finally(() => { this.ticking = undefined; });
    return this.ticking;
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    await this.renew();
    if (this.stopped) return;
    await this.balance();
  }

  private async renewAll(): Promise<void> {
    const now = Date.now();
    await this.store.heartbeat({ node: this.opts.node, since: this.startedAt, pid: process.pid, http: this.opts.httpUrl?.() })
      .catch((err: unknown) => this.log.warn({ err }, 'membership renewal failed'));
    await Promise.all([...this.held].map(async ([p, h]) => {
      try {
        const rev = await this.store.renew(p, h.lease, h.revision);
        if (rev === undefined) return await this.stepDown(p, 'lease taken by another node');
        h.revision = rev;
        h.renewedAt = now;
      } catch (err) {
        // NATS may be electing a leader: keep the partition while the lease cannot have expired yet.
        if (Date.now() - h.renewedAt > this.store.ttlMs - this.opts.renewMs) await this.stepDown(p, 'lease could not be renewed in time', err);
        else this.log.warn({ err, partition: p }, 'lease renewal failed; retrying');
      }
    }));
  }

  private async balance(): Promise<void> {
    const now = Date.now();
    const snap = await this.store.snapshot(now);
    for (const [p, e] of snap.leases) this.lastSeen.set(p, e);
    const alive = (e: LeaseEntry) => !this.store.expired(e, now);
    const plan = planBalance({
      partitions: this.opts.partitions,
      self: this.opts.node,
      nodes: snap.members.map((m) => m.node),
      leases: [...snap.leases.values()].map((e) => ({ partition: e.partition, node: alive(e) ? e.node : undefined })),
    });
    for (const p of plan.give) if (this.held.has(p)) await this.handOver(p);
    // Leases left under this node's name by an earlier process of it (same AF_NODE_NAME) are taken back at once.
    const leftovers = [...snap.leases.values()].filter((e) => e.node === this.opts.node && alive(e) && !this.held.has(e.partition)).map((e) => e.partition);
    const wanted = [...leftovers, ...plan.take.filter((p) => !leftovers.includes(p))].slice(0, Math.max(0, plan.target - this.held.size));
    const got: { p: number; prev: LeaseEntry | undefined }[] = [];
    for (const p of wanted) {
      if (this.stopped) break;
      const prev = snap.leases.get(p);
      const last = prev ?? this.lastSeen.get(p);
      const lease: Lease = { node: this.opts.node, since: Date.now(), epoch: (last?.epoch ?? 0) + 1 };
      const rev = await this.store.acquire(p, lease, prev).catch((err: unknown) => { this.log.warn({ err, partition: p }, 'lease acquire failed'); return undefined; });
      if (rev === undefined) continue;
      this.held.set(p, { lease, revision: rev, renewedAt: Date.now(), serving: false });
      got.push({ p, prev: last });
    }
    if (got.length > 0) await this.takeOver(got, now);
  }

  /** Rebuilds newly leased partitions on every host, then serves them. */
  private async takeOver(got: { p: number; prev: LeaseEntry | undefined }[], now: number): Promise<void> {
    const set = new Set(got.map((g) => g.p));
    const t0 = Date.now();
    let recovered = 0;
    const hostMs: number[] = [];
    const progress = new RecoveryProgress(this.log, set.size, this.hosts.length);
    try {
      for (const h of this.hosts) {
        const t = Date.now();
        progress.on(h.hostName ?? 'host');
        recovered += await h.recover(set, this.opts.partitions, progress);
        progress.hostDone();
        hostMs.push(Date.now() - t);
      }
    } catch (err) {
      this.log.error({ err, partitions: [...set] }, 'recovery of taken partitions failed; handing them back');
      for (const p of set) await this.handOver(p);
      return;
    } finally {
      progress.stop();
    }
    for (const { p, prev } of got) {
      const h = this.held.get(p);
      if (!h || this.stopped) continue;
      h.serving = true;
      this.server.serve(p);
      const from = prev && prev.node !== this.opts.node ? prev.node : undefined;
      // Taken over: the previous holder stopped renewing (it died); otherwise it was free or handed over.
      const takenOver = from !== undefined && this.store.expired(prev!, now);
      this.metrics?.changed(takenOver ? 'taken_over' : 'acquired');
      this.log.info({
        partition: p, epoch: h.lease.epoch, from, previousLeaseAgeMs: prev ? now - prev.since : undefined,
        silentForMs: prev ? now - prev.writtenAt : undefined, recoverMs: Date.now() - t0, hostMs, recovered,
      }, takenOver ? 'partition taken over' : 'partition acquired');
    }
  }

  /** Graceful hand-over: stop serving, drop the partition on every host, delete the lease. */
  private async handOver(p: number): Promise<void> {
    const h = this.held.get(p);
    if (!h) return;
    this.server.release(p);
    await this.releaseOnHosts(p);
    this.held.delete(p);
    await this.store.release(p, h.revision).catch((err: unknown) => this.log.warn({ err, partition: p }, 'lease delete failed; it will expire'));
    this.metrics?.changed('handed_over');
    this.log.info({ partition: p, epoch: h.lease.epoch, leaseAgeMs: Date.now() - h.lease.since }, 'partition handed over');
  }

  /** This node no longer holds the lease: stop at once, write nothing. */
  private async stepDown(p: number, reason: string, err?: unknown): Promise<void> {
    const h = this.held.get(p);
    if (!h) return;
    this.held.delete(p);
    this.server.release(p);
    await this.releaseOnHosts(p);
    this.metrics?.changed('stepped_down');
    this.log.warn({ err, partition: p, epoch: h.lease.epoch, leaseAgeMs: Date.now() - h.lease.since }, `partition stepped down: ${reason}`);
  }

  private async releaseOnHosts(p: number): Promise<void> {
    for (const host of this.hosts) await host.releasePartition(p).catch((err: unknown) => this.log.error({ err, partition: p }, 'releasePartition failed'));
  }

  /**
   * Another writer won the history fence in partition p: if this node's lease is gone (or now
   * names another node), it is a stale owner and steps down.
   */
  async checkOwnership(p: number): Promise<void> {
    const h = this.held.get(p);
    if (!h) return;
    const cur = await this.store.lease(p).catch(() => undefined);
    if (!cur || cur.node !== this.opts.node || cur.revision !== h.revision) {
      if (cur?.node === this.opts.node && cur.epoch === h.lease.epoch) { h.revision = cur.revision; return; }
      await this.stepDown(p, 'history fence: another owner wrote to this partition');
    }
  }

  /** Graceful stop: hands every partition over at once and leaves the membership. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.watcher?.stop();
    await this.ticking;
    await this.renewing;
    await Promise.all([...this.held.keys()].map((p) => this.handOver(p)));
    await this.store.leave(this.opts.node).catch(() => undefined);
  }
}
