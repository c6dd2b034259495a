import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devUser, NATS_USERS } from './nats/connect-options.js';
import { natsServerBinary } from './nats/server-binary.js';
import { stopsWhenWeDie } from './child-guard.js';
import { backoffMs, retry, sleep } from './protocol/retry.js';
import { durabilityFromEnv, withDurability, type Durability } from './nats/durability.js';
import { confWithPrefix } from './nats/conf-prefix.js';

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
  /** Where lines about the server's restarts go (default stderr). */
  log?: (line: string) => void;
  /** AF_PREFIX of the engine that uses it: the users' permissions are rewritten for it (nats.conf names `af`). */
  prefix?: string;
}

/**
 * The embedded server's options from the environment: AF_NATS_PORT, AF_DURABILITY,
 * AF_NATS_STORE_DIR (its JetStream store in place of nats.conf's `.data/jetstream`) and AF_PREFIX.
 */
export function embeddedNatsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddedNatsOptions {
  const port = env.AF_NATS_PORT === undefined ? 4222 : Number(env.AF_NATS_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`AF_NATS_PORT must be a port number from 1 to 65535, got ${env.AF_NATS_PORT}`);
  return {
    port, durability: durabilityFromEnv(env),
    ...(env.AF_NATS_STORE_DIR ? { storeDir: env.AF_NATS_STORE_DIR } : {}),
    ...(env.AF_PREFIX ? { prefix: env.AF_PREFIX } : {}),
  };
}

/**
 * Runs `nats-server -c nats.conf` (JetStream, store under .data/) for `npm start`; the server
 * stops with the node. Fails with an actionable message if the port is taken or the binary missing.
 * The users of nats.conf get AF_NATS_ENGINE_PASSWORD / AF_NATS_WORKER_PASSWORD, else the development
 * passwords; connect with `devUser('engine')` / `devUser('worker')`. With `durability: 'fsync'` the
 * server runs a copy of the config with `sync_interval: always`, written to .data/nats.effective.conf.
 * A server that exits on its own while the node runs is started again (backing off from 250 ms to
 * 30 s between tries); a node killed outright takes its server with it (child-guard.ts).
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
  // nats.conf's own store folder; with storeDir nothing is written beside nats.conf (a read-only install).
  if (!o.storeDir) mkdirSync('.data', { recursive: true });
  let conf = confPath;
  const prefixed = o.prefix !== undefined && o.prefix !== 'af';
  if (o.durability === 'fsync' || o.storeDir || prefixed) {
    // nats-server refuses -sd beside a config's store_dir, so the store folder goes into the copy too.
    let text = withDurability(readFileSync(confPath, 'utf8'), o.durability ?? 'default');
    if (prefixed) text = confWithPrefix(text, o.prefix!);
    if (o.storeDir) text = text.replace(/^(\s*store_dir:).*$/m, `$1 ${JSON.stringify(o.storeDir)}`);
    conf = join(o.storeDir ?? '.data', 'nats.effective.conf');
    mkdirSync(o.storeDir ?? '.data', { recursive: true });
    writeFileSync(conf, text);
  }
  const args = ['-c', conf, '-a', '127.0.0.1', '-p', String(o.port ?? 4222)];
  if (o.httpPort) args.push('-m', String(o.httpPort));
  const env = { ...process.env };
  for (const role of ['engine', 'worker'] as const) env[NATS_USERS[role].passwordEnv] = devUser(role, process.env).password;
  const say = o.log ?? ((line: string) => { process.stderr.write(`${line}\n`); });
  let server = await launch(args, env);
  const stopper = new AbortController();  // aborted by stop()
  const stopping = () => stopper.signal.aborted;
  let quickDeaths = 0;
  let stopped: Promise<void> | undefined;
  const stopWithUs = () => { server.dismissGuard(); if (running(server.proc)) server.proc.kill('SIGTERM'); };
  process.once('exit', stopWithUs);
  // A server that dies under the node (killed, out of memory) is started again on the same port and
  // store, as a supervisor would: the node's NATS connection reconnects on its own, JetStream
  // recovers the store, and no acknowledged write is lost.
  const supervise = (s: Launched, since = Date.now()) => s.proc.once('exit', (code, signal) => {
    if (stopping()) return;
    // A server that ran a while starts the backoff afresh; one that keeps dying soon backs off further.
    quickDeaths = Date.now() - since > STABLE_MS ? 1 : quickDeaths + 1;
    const waitMs = Math.round(backoffMs(RESTART, quickDeaths));
    say(`embedded nats-server exited unexpectedly (${signal ?? `code ${code}`}); starting it again in ${waitMs} ms on ${url}`);
    const onRetry = (e: unknown, _attempt: number, ms: number) => {
      // What it exited with, and its last log line (the reason: a port taken, a damaged store).
      const lines = (e as Error).message.split('\n').map((l) => l.trim()).filter(Boolean);
      say(`embedded nats-server did not start again (${[...new Set([lines[0], lines.at(-1)])].join(' ')}); next try in ${Math.round(ms)} ms`);
    };
    void sleep(waitMs, stopper.signal)
      .then(() => (stopping() ? undefined : retry(() => launch(args, env), { ...RESTART, onRetry, signal: stopper.signal })))
      .then((next) => {
        if (!next) return;
        if (stopping()) { next.dismissGuard(); next.proc.kill('SIGTERM'); return; }
        server = next;
        say(`embedded nats-server is running again on ${url}`);
        supervise(next);
      }, () => undefined);  // the node stopped while it waited
  });
  supervise(server);
  return {
    url,
    stop: () => stopped ??= new Promise<void>((resolve) => {
      stopper.abort();
      process.removeListener('exit', stopWithUs);
      server.dismissGuard();
      if (!running(server.proc)) return resolve();
      server.proc.once('exit', () => resolve());
      server.proc.kill('SIGTERM');
    }),
  };
}

/** A restarted server that runs this long is taken as well again: its next death waits 250 ms. */
const STABLE_MS = 60_000;
/** Waits before a restart, and between tries of one: 250 ms doubling to 30 s. */
const RESTART = { firstMs: 250, capMs: 30_000 };

const running = (p: ChildProcess) => p.exitCode === null && p.signalCode === null;

interface Launched {
  proc: ChildProcess;
  dismissGuard: () => void;
}

/** One nats-server process, ready (its "Server is ready" line). */
async function launch(args: string[], env: NodeJS.ProcessEnv): Promise<Launched> {
  // Its own process group: Ctrl-C in a terminal signals the whole foreground group, and the server
  // must outlive the engine's graceful stop (which still writes), so the engine stops it last.
  const proc: ChildProcess = spawn(natsServerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
  // A SIGKILL or the OOM killer runs no exit handler: the guard then stops the server.
  const dismissGuard = stopsWhenWeDie(proc);
  let stderr = '';
  const gather = (d: Buffer) => { stderr += d.toString(); };
  proc.stderr?.on('data', gather);
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: Error) => { done(); reject(e); };
      const onError = (e: Error) => fail(new Error(`cannot run nats-server (${e.message}); install it: apt-get install nats-server`));
      const onExit = (code: number | null) => fail(new Error(`nats-server exited with ${code}:\n${stderr}${/unknown field "sync_interval"/.test(stderr) ? '\nAF_DURABILITY=fsync needs nats-server 2.10 or newer: run `bash scripts/current-nats-server.sh` (npm start does)' : ''}`));
      const timer = setTimeout(() => fail(new Error(`nats-server did not start in 10 s:\n${stderr}`)), 10_000);
      const check = setInterval(() => { if (stderr.includes('Server is ready')) { done(); resolve(); } }, 20);
      // Only this wait's own listeners go: the guard's stays on 'exit'.
      const done = () => { clearInterval(check); clearTimeout(timer); proc.off('error', onError).off('exit', onExit); };
      proc.once('error', onError).once('exit', onExit);
    });
  } catch (e) {
    if (running(proc)) proc.kill('SIGKILL');
    throw e;
  }
  // Only the start's lines are kept: the server logs for as long as it runs.
  proc.stderr?.off('data', gather).resume();
  proc.on('error', () => undefined);  // a failed kill of a server already gone
  return { proc, dismissGuard };
}

