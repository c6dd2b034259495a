import { Counter, Gauge, type Registry } from 'prom-client';

/** What the gauges read at scrape time: the partitions this node holds and since when. */
export interface OwnedLeases {
  ownedSince(): ReadonlyMap<number, number>;
}

export type LeaseChange = 'acquired' | 'taken_over' | 'handed_over' | 'stepped_down';

/** Partition ownership metrics, registered on the node's registry (served at GET /metrics). */
export class ClusterMetrics {
  private readonly changes: Counter<'change'>;

  constructor(registry: Registry, leases: OwnedLeases, now: () => number = Date.now) {
    const registers = [registry];
    new Gauge({
      name: 'actorflow_partitions_owned', help: 'Partitions whose lease this node holds and serves', registers,
      collect() { this.set(leases.ownedSince().size); },
    });
    new Gauge({
      name: 'actorflow_partition_lease_age_seconds', help: 'How long this node has held each partition lease', labelNames: ['partition'], registers,
      collect() {
        this.reset();
        for (const [p, since] of leases.ownedSince()) this.set({ partition: String(p) }, (now() - since) / 1000);
      },
    });
    this.changes = new Counter({
      name: 'actorflow_partition_lease_changes_total',
      help: 'Lease changes on this node: acquired (free), taken_over (expired lease of another node), handed_over, stepped_down',
      labelNames: ['change'], registers,
    });
    for (const c of ['acquired', 'taken_over', 'handed_over', 'stepped_down'] as const) this.changes.inc({ change: c }, 0);
  }

  changed(change: LeaseChange, n = 1): void {
    this.changes.inc({ change }, n);
  }
}
