import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDurability, type Durability } from '../nats/durability.js';
import { natsServerBinary } from '../nats/server-binary.js';

export interface NatsServerHandle {
  /** `nats://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** JetStream store directory (inside the temp dir removed by `stop()`). */
  storeDir: string;
  /** SIGTERM, wait for exit (SIGKILL after 5 s), remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  /** Send a signal without waiting or cleaning up (e.g. to simulate a crash). */
  kill(signal?: NodeJS.Signals): void;
  proc: ChildProcess;
}

const START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;
const MAX_LOG_CHARS = 64 * 1024;

/**
 * Start a throw-away nats-server with JetStream on a random loopback port.
 * Everything it writes lives in a fresh temp dir that `stop()` removes. `durability: 'fsync'` runs
 * it with `sync_interval: always` (src/nats/durability.ts).
 */
export async function startNatsServer(opts: { args?: string[]; env?: NodeJS.ProcessEnv; durability?: Durability } = {}): Promise<NatsServerHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'actorflow-nats-'));
  const storeDir = join(dir, 'js');
  const bin = natsServerBinary();
  const args = ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', storeDir, '--ports_file_dir', dir, ...(opts.args ?? [])];
  if (opts.durability && opts.durability !== 'default') {
    // The setting has no command-line flag: a config of just the jetstream block (the store stays -sd's).
    const conf = join(dir, 'durability.conf');
    await writeFile(conf, withDurability('jetstream {\n}\n', opts.durability));
    args.unshift('-c', conf);
  }

  let proc: ChildProcess;
  try {
    // `env`: variables a config file references (`$AF_NATS_ENGINE_PASSWORD`), over the test's own.
    proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }

  let output = '';
  const capture = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > MAX_LOG_CHARS) output = output.slice(-MAX_LOG_CHARS);
  };
  proc.stdout?.on('data', capture);
  proc.stderr?.on('data', capture);

  let exited = false;
  let exitInfo = '';
  const exitPromise = new Promise<void>((resolve) => {
    proc.once('exit', (code, signal) => {
      exited = true;
      exitInfo = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  let spawnError: Error | undefined;
  proc.once('error', (err) => {
    spawnError = err;
    exited = true;
  });

  const cleanup = async () => {
    if (!exited && proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await Promise.race([exitPromise, delay(STOP_GRACE_MS)]);
    }
    await rm(dir, { recursive: true, force: true });
  };

  let port: number;
  let url: string;
  try {
    ({ port, url } = await waitForPortsFile(dir, () => {
      if (spawnError) {
        const hint =
          (spawnError as NodeJS.ErrnoException).code === 'ENOENT'
            ? ' (nats-server not found: run `bash scripts/ensure-deps.sh` or install it, e.g. `sudo apt-get install nats-server`)'
            : '';
        return new Error(`failed to spawn ${bin}: ${spawnError.message}${hint}`);
      }
      if (exited) return new Error(`nats-server exited early (${exitInfo}):\n${output.trim()}`);
      return undefined;
    }, () => output));
  } catch (err) {
    await cleanup();
    throw err;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (!exited && proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
        }, STOP_GRACE_MS);
        await exitPromise;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  return {
    url,
    port,
    storeDir,
    stop,
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    },
    proc,
  };
}

/**
 * Wait for `<dir>/<exe>_<pid>.ports` (written by --ports_file_dir once the
 * server listens). `failure()` returns an error if the process died meanwhile.
 */
async function waitForPortsFile(
  dir: string,
  failure: () => Error | undefined,
  logs: () => string,
): Promise<{ port: number; url: string }> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const early = failure();
    if (early) throw early;
    const names = (await readdir(dir)).filter((n) => n.endsWith('.ports'));
    for (const name of names) {
      try {
        const info = JSON.parse(await readFile(join(dir, name), 'utf8')) as { nats?: string[] };
        const first = info.nats?.[0];
        if (first) {
          const port = Number(new URL(first).port);
          if (port > 0) return { port, url: `nats://127.0.0.1:${port}` };
        }
      } catch {
        // Partially written file: retry on the next tick.
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`nats-server did not report its port within ${START_TIMEOUT_MS} ms:\n${logs().trim()}`);
    }
    await delay(25);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
