import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ENGINE_NODE_FLAGS } from '../../src/node-flags.js';
import { freePort } from './nats-cluster.js';

/** How an engine process ended: an exit code, or the signal that killed it. */
export interface EngineExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface EngineProcess {
  proc: ChildProcess;
  pid: number;
  /** Epoch ms when the process was spawned, and when its GET /readyz first answered 200. */
  spawnedAt: number;
  readyAt: number;
  /** Its HTTP gateway (`http://127.0.0.1:<port>`). */
  http: string;
  /** Sends a signal (SIGKILL simulates a crash, SIGTERM asks for a graceful stop); no-op once exited. */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves when the process has exited (never rejects). */
  exited: Promise<EngineExit>;
  /** Everything the process wrote to stdout and stderr so far (the last 64 KiB). */
  output(): string;
  /** SIGTERM, wait for the exit (SIGKILL after `graceMs`). Idempotent; for afterAll/finally. */
  stop(graceMs?: number): Promise<EngineExit>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Generous: a node starting on a busy 2-core machine (three nats-servers, two engines under load) can take a while.
const READY_TIMEOUT_MS = 45_000;
const MAX_LOG_CHARS = 64 * 1024;

/**
 * Runs `src/serve.ts` as its own process (`node --import tsx src/serve.ts`) against `natsUrl` (none:
 * the engine runs its embedded nats-server, see AF_NATS_PORT and AF_NATS_STORE_DIR), and resolves
 * once its GET /readyz answers 200 (connected, its partitions rebuilt). `env` adds to (or
 * overrides) the environment, e.g. `{ AF_SLEEP_AFTER_MS: '500' }`.
 */
export async function spawnEngine(natsUrl: string | undefined, env: Record<string, string> = {}, opts: { openFiles?: number; nodeArgs?: string[] } = {}): Promise<EngineProcess> {
  // A free port (not 8080, which may be busy) unless the caller names one: /readyz is asked there.
  const port = env.AF_HTTP_PORT && env.AF_HTTP_PORT !== '0' ? Number(env.AF_HTTP_PORT) : await freePort();
  const http = `http://127.0.0.1:${port}`;
  const spawnedAt = Date.now();
  // `nodeArgs`: flags for node itself (e.g. `--cpu-prof`, which NODE_OPTIONS may not carry).
  const args = [...ENGINE_NODE_FLAGS, ...(opts.nodeArgs ?? []), '--import', 'tsx', 'src/serve.ts'];
  // `openFiles`: the process's open-file limit (prlimit execs node, so the pid stays node's).
  const [cmd, argv] = opts.openFiles ? ['prlimit', [`--nofile=${opts.openFiles}:${opts.openFiles}`, process.execPath, ...args]] : [process.execPath, args];
  const { NATS_URL: _inherited, ...base } = process.env;
  const proc = spawn(cmd, argv, {
    cwd: ROOT,
    env: { ...base, ...(natsUrl ? { NATS_URL: natsUrl } : {}), AF_LOG_LEVEL: 'warn', ...env, AF_HTTP_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  let output = '';
  const capture = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > MAX_LOG_CHARS) output = output.slice(-MAX_LOG_CHARS);
  };
  proc.stderr!.on('data', capture);

  let exitInfo: EngineExit | undefined;
  const exited = new Promise<EngineExit>((resolve) => {
    proc.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
    proc.once('error', (err) => {
      capture(Buffer.from(`spawn error: ${err.message}\n`));
      exitInfo ??= { code: null, signal: null };
      resolve(exitInfo);
    });
  });
  const alive = () => exitInfo === undefined && proc.exitCode === null && proc.signalCode === null;
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => { if (alive()) proc.kill(signal); };

  proc.stdout!.on('data', capture);
  const readyAt = await new Promise<number>((resolve, reject) => {
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      kill('SIGKILL');
      reject(err);
    };
    void exited.then((x) => fail(new Error(`engine process exited before it was ready (${x.signal ?? `code ${x.code}`}):\n${output.trim()}`)));
    void (async () => {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      while (!done) {
        const status = await fetch(`${http}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0);
        if (status === 200) { done = true; resolve(Date.now()); return; }
        if (Date.now() > deadline) return fail(new Error(`engine process was not ready (GET ${http}/readyz) within ${READY_TIMEOUT_MS} ms:\n${output.trim()}`));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  });

  let stopping: Promise<EngineExit> | undefined;
  return {
    proc,
    pid: proc.pid!,
    spawnedAt,
    readyAt,
    http,
    kill,
    exited,
    output: () => output,
    stop(graceMs = 5000) {
      stopping ??= (async () => {
        if (alive()) {
          proc.kill('SIGTERM');
          const t = setTimeout(() => kill('SIGKILL'), graceMs);
          await exited;
          clearTimeout(t);
        }
        return exited;
      })();
      return stopping;
    },
  };
}
