import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devUser, NATS_USERS } from './nats/connect-options.js';
import { natsServerBinary } from './nats/server-binary.js';
import { stopsWhenWeDie } from './child-guard.js';
import { durabilityFromEnv, withDurability, type Durability } from './nats/durability.js';

export interface EmbeddedNats {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedNatsOptions {
  /** The configuration to run (default nats.conf; its relative paths resolve from the cwd). */
  confPath?: string;
  /** Client port on 127.0.0.1 (AF_NATS_PORT, default 4222). */
  port?: number;
  /** AF_DURABILITY: `fsync` runs the server with `sync_interval: always`. */
  durability?: Durability;
  /** JetStream store folder in place of the config's (tests). */
  storeDir?: string;
  /** Monitoring port (`/varz`, `/jsz`), off by default. */
  httpPort?: number;
}

/**
 * The embedded server's options from the environment: AF_NATS_PORT, AF_DURABILITY and
 * AF_NATS_STORE_DIR (its JetStream store in place of nats.conf's `.data/jetstream`).
 */
export function embeddedNatsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddedNatsOptions {
  const port = env.AF_NATS_PORT === undefined ? 4222 : Number(env.AF_NATS_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`AF_NATS_PORT must be a port number from 1 to 65535, got ${env.AF_NATS_PORT}`);
  return { port, durability: durabilityFromEnv(env), ...(env.AF_NATS_STORE_DIR ? { storeDir: env.AF_NATS_STORE_DIR } : {}) };
}

/**
 * Runs `nats-server -c nats.conf` (JetStream, store under .data/) for `npm start`; the server
 * stops with the node. Fails with an actionable message if the port is taken or the binary missing.
 * The users of nats.conf get AF_NATS_ENGINE_PASSWORD / AF_NATS_WORKER_PASSWORD, else the development
 * passwords; connect with `devUser('engine')` / `devUser('worker')`. With `durability: 'fsync'` the
 * server runs a copy of the config with `sync_interval: always`, written to .data/nats.effective.conf.
 */
export async function startEmbeddedNats(o: EmbeddedNatsOptions = embeddedNatsOptionsFromEnv()): Promise<EmbeddedNats> {
  const confPath = o.confPath ?? 'nats.conf';
  const url = `nats://127.0.0.1:${o.port ?? 4222}`;
  try {
    const probe = await connect({ servers: url, reconnect: false, timeout: 500 });
    await probe.close();
    throw new Error(`something already listens on ${url}; stop it, set AF_NATS_PORT to another port, or set NATS_URL=${url} to use it`);
  } catch (e) {
    if ((e as Error).message.startsWith('something already')) throw e;
    // A server that wants credentials still answered: the port is taken.
    if ((e as Error).name === 'AuthorizationError') throw new Error(`something already listens on ${url}; stop it, set AF_NATS_PORT to another port, or set NATS_URL=${url} to use it`, { cause: e });
  }
  mkdirSync('.data', { recursive: true });
  let conf = confPath;
  if (o.durability === 'fsync' || o.storeDir) {
    // nats-server refuses -sd beside a config's store_dir, so the store folder goes into the copy too.
    let text = withDurability(readFileSync(confPath, 'utf8'), o.durability ?? 'default');
    if (o.storeDir) text = text.replace(/^(\s*store_dir:).*$/m, `$1 ${JSON.stringify(o.storeDir)}`);
    conf = join(o.storeDir ?? '.data', 'nats.effective.conf');
    mkdirSync(o.storeDir ?? '.data', { recursive: true });
    writeFileSync(conf, text);
  }
  const args = ['-c', conf, '-a', '127.0.0.1', '-p', String(o.port ?? 4222)];
  if (o.httpPort) args.push('-m', String(o.httpPort));
  const env = { ...process.env };
  for (const role of ['engine', 'worker'] as const) env[NATS_USERS[role].passwordEnv] = devUser(role, process.env).password;
  // Its own process group: Ctrl-C in a terminal signals the whole foreground group, and the server
  // must outlive the engine's graceful stop (which still writes), so the engine stops it last.
  const proc: ChildProcess = spawn(natsServerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
  // A SIGKILL or the OOM killer runs no exit handler: the guard then stops the server.
  const dismissGuard = stopsWhenWeDie(proc);
  const stopWithUs = () => {
    dismissGuard();
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
  };
  process.once('exit', stopWithUs);
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start in 10 s:\n${stderr}`)), 10_000);
    proc.once('error', (e) => { clearTimeout(timer); reject(new Error(`cannot run nats-server (${e.message}); install it: apt-get install nats-server`)); });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`nats-server exited with ${code}:\n${stderr}${/unknown field "sync_interval"/.test(stderr) ? '\nAF_DURABILITY=fsync needs nats-server 2.10 or newer: run `bash scripts/current-nats-server.sh` (npm start does)' : ''}`)); });
    const check = setInterval(() => {
      if (stderr.includes('Server is ready')) { clearInterval(check); clearTimeout(timer); proc.removeAllListeners('exit'); resolve(); }
    }, 20);
  });
  return {
    url,
    stop: () => new Promise<void>((resolve) => {
      process.removeListener('exit', stopWithUs);
      dismissGuard();
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}

