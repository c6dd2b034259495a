import pino from 'pino';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseManager } from '../../src/cluster/lease-manager.js';
import { LeaseStore } from '../../src/cluster/lease-store.js';
import { subjects } from '../../src/nats/subjects.js';
import type { PartitionHost } from '../../src/engine/partition-host.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

/**
 * Rebuilding a large partition can take longer than the lease TTL (100,000 runs take over a minute):
 * the leases a node already holds must be renewed meanwhile, or it loses them mid-recovery, steps down,
 * takes them again and never settles.
 */
const logger = pino({ level: process.env.AF_TEST_LOG ?? 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

describe('lease renewal during a long recovery', () => {
  it('keeps every lease while a host takes three TTLs to rebuild', async () => {
    const TTL = 1000;
    const store = await LeaseStore.open(nc, subjects('lr'), TTL, 1);
    const served = new Set<number>();
    const released: number[] = [];
    let recoveries = 0;
    // A real host that is simply slow: its rebuild takes 3 s, three lease TTLs.
    const slow: PartitionHost = {
      async recover() { recoveries++; await new Promise((r) => setTimeout(r, 3 * TTL)); return 0; },
      async releasePartition(p) { released.push(p); },
    };
    const lm = new LeaseManager(store, [slow], { serve: (p) => served.add(p), release: (p) => served.delete(p) },
      { node: 'slow-node', partitions: 4, renewMs: TTL / 4 }, logger);
    try {
      await lm.start();
      expect([...served].sort()).toEqual([0, 1, 2, 3]);
      // While it rebuilt, the leases were renewed: none lapsed, none was given up, all still ours.
      await new Promise((r) => setTimeout(r, 2 * TTL));
      const snap = await store.snapshot();
      expect([...snap.leases.values()].map((l) => [l.partition, l.node, store.expired(l)]).sort())
        .toEqual([[0, 'slow-node', false], [1, 'slow-node', false], [2, 'slow-node', false], [3, 'slow-node', false]]);
      expect(released).toEqual([]);
      expect(recoveries).toBe(1);
    } finally {
      await lm.stop();
    }
    await until(async () => (await store.snapshot()).leases.size === 0, { timeoutMs: 3000, message: 'leases deleted on stop' });
  });
});
