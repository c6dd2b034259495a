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
  /**
   * Starts server i again after it exited (same name, ports and store: a crashed machine coming
   * back); replaces `servers[i]` and resolves once it accepts clients.
   */
  restart(i: number): Promise<ClusterServer>;
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
  const confs: string[] = [];
  for (let i = 0; i < size; i++) {
    const name = `n${i + 1}`;
    const store = join(dir, name);
    await mkdir(store, { recursive: true });
    confs.push(join(dir, `${name}.conf`));
    await writeFile(confs[i]!, [
      `server_name: ${name}`,
      `listen: 127.0.0.1:${clientPorts[i]}`,
      `jetstream { store_dir: "${store}", max_memory_store: 256MB, max_file_store: 2GB }`,
      `cluster { name: af-test, listen: 127.0.0.1:${routePorts[i]}, routes: [${routes}] }`,
      '',
    ].join('\n'));
  }
  let stopping: Promise<void> | undefined;
  const launch = (i: number): ClusterServer => {
    const name = `n${i + 1}`;
    const proc = spawn(natsServerBinary(), ['-c', confs[i]!], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr!.on('data', (c: Buffer) => { log = (log + c.toString()).slice(-16_384); });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    void exited.then(() => { if (proc.signalCode === null && proc.exitCode !== 0 && !stopping) console.error(`nats-server ${name} exited:\n${log}`); });
    return {
      name, url: `nats://127.0.0.1:${clientPorts[i]}`, port: clientPorts[i]!, proc, exited,
      kill(signal: NodeJS.Signals = 'SIGKILL') { if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal); },
    };
  };
  const servers = Array.from({ length: size }, (_, i) => launch(i));
  const handle: NatsClusterHandle = {
    servers,
    urls: servers.map((s) => s.url).join(','),
    async restart(i) {
      await servers[i]!.exited;
      servers[i] = launch(i);
      await untilAccepting(servers[i]!);
      return servers[i]!;
    },
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

/** Resolves once the server takes a client connection (it listens and has read its store). */
async function untilAccepting(server: ClusterServer, timeoutMs = 30_000): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) throw new Error(`nats-server ${server.name} exited while starting again`);
    try {
      await (await connect({ servers: server.url, reconnect: false, timeout: 1000 })).close();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`nats-server ${server.name} took no client in ${timeoutMs} ms: ${String(e)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
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
