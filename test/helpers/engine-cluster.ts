import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll } from 'vitest';
import { readClusterStatus } from '../../src/cluster/cluster-status.js';
import { encode } from '../../src/protocol/codec.js';
import { spawnEngine, type EngineProcess } from './engine-process.js';
import { startNatsCluster, type NatsClusterHandle } from './nats-cluster.js';
import { until } from './until.js';
import { ENGINE_INBOX_PREFIX } from '../../src/nats/connect-options.js';

export interface EngineCluster {
  nats: NatsClusterHandle;
  /** The engine processes by index; `restart(i)` replaces entry i. */
  engines: EngineProcess[];
  /** A connection to every NATS server (for the SDK client and KV reads). */
  nc: NatsConnection;
  /** Starts engine i again (same node name) and waits until it is ready. */
  restart(i: number): Promise<EngineProcess>;
  /** The partitions whose lease names this node. */
  partitionsOf(node: string): Promise<number[]>;
  /** Resolves once every listed partition answers on its owner subject; returns when that was. */
  servedAgain(partitions: readonly number[], timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

export const engineName = (i: number) => `engine-${i + 1}`;

/**
 * Three (or `size`) nats-servers as one JetStream cluster and as many clustered engine processes
 * (src/serve.ts, AF_CLUSTER=1), all on loopback with random ports and temp stores.
 */
export async function startEngineCluster(opts: { engines?: number; env?: Record<string, string> } = {}): Promise<EngineCluster> {
  const nats = await startNatsCluster(3);
  const engines: EngineProcess[] = [];
  let nc: NatsConnection | undefined;
  let ownerNc: NatsConnection | undefined;
  const envOf = (i: number) => ({ AF_CLUSTER: '1', AF_NODE_NAME: engineName(i), AF_LOG_LEVEL: 'info', ...opts.env });
  const stop = async () => {
    await nc?.close().catch(() => undefined);
    await ownerNc?.close().catch(() => undefined);
    await Promise.all(engines.map((e) => e.stop(3000)));
    await nats.stop();
  };
  try {
    // The first engine creates streams and buckets (R3) and the partition count; the others join it.
    engines.push(await spawnEngine(nats.urls, envOf(0)));
    engines.push(...await Promise.all(Array.from({ length: (opts.engines ?? 3) - 1 }, (_, i) => spawnEngine(nats.urls, envOf(i + 1)))));
    nc = await connect({ servers: nats.servers.map((s) => s.url), maxReconnectAttempts: -1, reconnectTimeWait: 250, noAsyncTraces: true });
    // Owner calls (af.part.<p>.*, pinged by servedAgain) answer only engine inboxes, API calls only client inboxes.
    ownerNc = await connect({ servers: nats.servers.map((s) => s.url), maxReconnectAttempts: -1, reconnectTimeWait: 250, noAsyncTraces: true, inboxPrefix: ENGINE_INBOX_PREFIX });
  } catch (e) {
    await stop();
    throw e;
  }
  const conn = nc;
  const owners = ownerNc!;
  return {
    nats, engines, nc: conn, stop,
    async restart(i) {
      engines[i] = await spawnEngine(nats.urls, envOf(i));
      return engines[i]!;
    },
    async partitionsOf(node) {
      return (await readClusterStatus(conn)).leases.filter((l) => l.node === node).map((l) => l.partition);
    },
    async servedAgain(partitions, timeoutMs) {
      // An owner answers even an unknown op (UnknownOperationException); no owner = no responders.
      await until(async () => {
        const answers = await Promise.all(partitions.map((p) => owners.request(`af.part.${p}.ping`, encode({}), { timeout: 1000 }).then(() => true, () => false)));
        return answers.every(Boolean);
      }, { timeoutMs, intervalMs: 100, message: `partitions ${partitions.join(',')} served again` });
      return Date.now();
    },
  };
}

/** Waits until the leases are balanced: every node owns some partition and every partition has an owner. */
export async function untilBalanced(c: EngineCluster, nodes: number, timeoutMs = 20_000): Promise<void> {
  await until(async () => {
    const st = await readClusterStatus(c.nc);
    const owners = new Set(st.leases.filter((l) => l.node).map((l) => l.node));
    return st.partitions !== undefined && st.leases.filter((l) => l.node).length === st.partitions && owners.size === nodes;
  }, { timeoutMs, intervalMs: 200, message: `leases spread over ${nodes} nodes` });
}

/**
 * A test file's balanced 3-engine cluster: started (and balanced) before its tests, stopped after
 * them. Call at the top level of the file; the returned function gives the running cluster.
 */
export function useBalancedEngineCluster(): () => EngineCluster {
  let c: EngineCluster | undefined;
  beforeAll(async () => {
    c = await startEngineCluster();
    await untilBalanced(c, 3);
  }, 60_000);
  afterAll(async () => {
    await c?.stop();
  });
  return () => {
    if (!c) throw new Error('the engine cluster is not running');
    return c;
  };
}
