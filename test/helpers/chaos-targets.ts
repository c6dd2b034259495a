import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { devUser } from '../../src/nats/connect-options.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { engineName, startEngineCluster, untilBalanced } from './engine-cluster.js';
import { spawnEngine, type EngineProcess } from './engine-process.js';
import { freePort } from './nats-cluster.js';
import { sleep } from './resilient-orders.js';
import { until } from './until.js';

/**
 * What a chaos run kills: the processes of a topology, each able to crash (SIGKILL, wait for the
 * exit) and come back (same name, ports and store, like a machine that rebooted).
 */
export type TargetKind = 'engine' | 'nats-server' | 'engine+nats';

export interface ChaosTarget {
  kind: TargetKind;
  name: string;
  crash(): Promise<void>;
  /** Starts it again and resolves once it serves (an engine's /readyz; a server's streams caught up). */
  restart(): Promise<void>;
}

export interface ChaosTopology {
  /** What runs, in a few words (the report's title). */
  title: string;
  /** An SDK client that reconnects through every crash. */
  client: ActorFlowClient;
  targets: ChaosTarget[];
  stop(): Promise<void>;
}

/**
 * Resolves once every stream has a leader and all its replicas online and caught up (within a few
 * operations: under load a follower is rarely exactly current), i.e. a restarted server is back in.
 */
async function untilStreamsCaughtUp(nc: NatsConnection, timeoutMs: number): Promise<void> {
  await until(async () => {
    // Made here: making one asks JetStream, which may time out while a server is just back.
    const jsm = await jetstreamManager(nc, { timeout: 2000 });
    for await (const si of jsm.streams.list()) {
      const c = si.cluster;
      const replicas = c?.replicas ?? [];
      if (!c?.leader || replicas.length < si.config.num_replicas - 1 || replicas.some((r) => r.offline || (!r.current && (r.lag ?? 0) > 100))) return false;
    }
    return true;
  }, { timeoutMs, intervalMs: 500, message: 'every stream led, its replicas caught up' });
}

/** Three nats-servers (one JetStream cluster, R3 streams) and three clustered engine processes. */
export async function startClusterTopology(): Promise<ChaosTopology> {
  const c = await startEngineCluster();
  try {
    await untilBalanced(c, 3, 60_000);
  } catch (e) {
    await c.stop();
    throw e;
  }
  const client = await ActorFlowClient.connect({ connection: c.nc });
  const engines: ChaosTarget[] = c.engines.map((_, i) => ({
    kind: 'engine', name: engineName(i),
    async crash() { c.engines[i]!.kill('SIGKILL'); await c.engines[i]!.exited; },
    async restart() { await c.restart(i); },
  }));
  const servers: ChaosTarget[] = c.nats.servers.map((s, i) => ({
    kind: 'nats-server', name: `nats-server ${s.name}`,
    async crash() { c.nats.servers[i]!.kill('SIGKILL'); await c.nats.servers[i]!.exited; },
    async restart() {
      const { proc } = c.nats.servers[i]!;
      if (proc.exitCode !== null || proc.signalCode !== null) await c.nats.restart(i);
      await untilStreamsCaughtUp(c.nc, 60_000);
    },
  }));
  return { title: 'cluster: 3 nats-servers (JetStream R3), 3 engine nodes', client, targets: [...engines, ...servers], stop: () => c.stop() };
}

/** The pids of a process's children (every thread's), from /proc. */
async function childPids(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(tasks.map((t) => readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '')));
  return lists.flatMap((l) => l.split(/\s+/).filter(Boolean).map(Number));
}

/** Whether `pid` is gone (or a zombie: it holds no port or file any more). */
async function gone(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat === '' || /^\d+ \(.*\) Z/.test(stat);
}

/**
 * One engine with its embedded nats-server (src/serve.ts without NATS_URL), its store in a temp
 * dir; a crash SIGKILLs the engine and its nats-server together, as when the machine dies.
 */
export async function startSingleTopology(): Promise<ChaosTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'actorflow-chaos-'));
  const natsPort = await freePort();
  const env = { AF_NATS_PORT: String(natsPort), AF_NATS_STORE_DIR: join(dir, 'js') };
  let engine: EngineProcess;
  let nats: number[] = [];
  const start = async () => {
    engine = await spawnEngine(undefined, env);
    nats = await childPids(engine.pid);
    if (nats.length === 0) throw new Error('the engine runs no embedded nats-server');
  };
  await start().catch(async (e: unknown) => { await rm(dir, { recursive: true, force: true }); throw e; });
  const client = await ActorFlowClient.connect({ servers: `nats://127.0.0.1:${natsPort}`, auth: devUser('worker') });
  // Only while the pid is still that nats-server (a pid that exited may be someone else's by now).
  const killNats = async () => {
    for (const pid of nats) {
      const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmd.includes('nats-server')) process.kill(pid, 'SIGKILL');
    }
  };
  const target: ChaosTarget = {
    kind: 'engine+nats', name: 'engine and its nats-server',
    async crash() {
      await killNats();
      engine.kill('SIGKILL');
      await engine.exited;
      await until(async () => (await Promise.all(nats.map(gone))).every(Boolean), { timeoutMs: 10_000, message: 'the embedded nats-server gone' });
    },
    restart: start,
  };
  return {
    title: 'single: one engine with its embedded nats-server', client, targets: [target],
    async stop() {
      await client.close().catch(() => undefined);
      await engine.stop();
      await sleep(100);
      await killNats();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
