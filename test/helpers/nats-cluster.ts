import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsServerBinary } from '../../src/nats/server-binary.js';

export interface ClusterServer {
  name: string;
  url: string;
  port: number;
  proc: ChildProcess;
  /** SIGKILL (a crash) or SIGTERM; does not wait. */
  kill(signal?: NodeJS.Signals): void;
  exited: Promise<void>;
}

export interface NatsClusterHandle {
  servers: ClusterServer[];
  /** Every client URL, comma-separated (what NATS_URL takes). */
  urls: string;
  /** Stops every server still running and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** A free loopback port (closed again at once; the server binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts `size` nats-servers with JetStream as one cluster on loopback (random client and route
 * ports, stores in a temp dir), and resolves once JetStream has a meta leader (a stream can be made).
 */
export async function startNatsCluster(size = 3): Promise<NatsClusterHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'actorflow-cluster-'));
  const clientPorts = await Promise.all(Array.from({ length: size }, freePort));
  const routePorts = await Promise.all(Array.from({ length: size }, freePort));
  const routes = routePorts.map((p) => `"nats-route://127.0.0.1:${p}"`).join(', ');
  const servers: ClusterServer[] = [];
  for (let i = 0; i < size; i++) {
    const name = `n${i + 1}`;
    const store = join(dir, name);
    await mkdir(store, { recursive: true });
    const conf = join(dir, `${name}.conf`);
    await writeFile(conf, [
      `server_name: ${name}`,
      `listen: 127.0.0.1:${clientPorts[i]}`,
      `jetstream { store_dir: "${store}", max_memory_store: 256MB, max_file_store: 2GB }`,
      `cluster { name: af-test, listen: 127.0.0.1:${routePorts[i]}, routes: [${routes}] }`,
      '',
    ].join('\n'));
    const proc = spawn(natsServerBinary(), ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr!.on('data', (c: Buffer) => { log = (log + c.toString()).slice(-16_384); });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    servers.push({
      name, url: `nats://127.0.0.1:${clientPorts[i]}`, port: clientPorts[i]!, proc, exited,
      kill(signal: NodeJS.Signals = 'SIGKILL') { if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal); },
    });
    void exited.then(() => { if (proc.signalCode === null && proc.exitCode !== 0 && !stopping) console.error(`nats-server ${name} exited:\n${log}`); });
  }
  let stopping: Promise<void> | undefined;
  const handle: NatsClusterHandle = {
    servers,
    urls: servers.map((s) => s.url).join(','),
    stop() {
      stopping ??= (async () => {
        for (const s of servers) s.kill('SIGTERM');
        await Promise.race([Promise.all(servers.map((s) => s.exited)), new Promise((r) => setTimeout(r, 5000))]);
        for (const s of servers) s.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
  try {
    await waitForMetaLeader(handle.urls);
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}

async function waitForMetaLeader(urls: string): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const deadline = Date.now() + 15_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const nc = await connect({ servers: urls.split(','), timeout: 1000 });
      try {
        const jsm = await jetstreamManager(nc);
        await jsm.getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`the NATS cluster has no JetStream meta leader after 15 s: ${String(last)}`);
}
