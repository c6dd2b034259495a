import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How an engine process ended: an exit code, or the signal that killed it. */
export interface EngineExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface EngineProcess {
  proc: ChildProcess;
  pid: number;
  /** Epoch ms when the process was spawned, and when it printed its ready line. */
  spawnedAt: number;
  readyAt: number;
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
 * Runs `src/serve.ts` as its own process (`node --import tsx src/serve.ts`) against `natsUrl`, and
 * resolves once it printed its `"ready":true` line. `env` adds to (or overrides) the environment,
 * e.g. `{ AF_SLEEP_AFTER_MS: '500' }`.
 */
export async function spawnEngine(natsUrl: string, env: Record<string, string> = {}, opts: { openFiles?: number } = {}): Promise<EngineProcess> {
  const spawnedAt = Date.now();
  const args = ['--import', 'tsx', 'src/serve.ts'];
  // `openFiles`: the process's open-file limit (prlimit execs node, so the pid stays node's).
  const [cmd, argv] = opts.openFiles ? ['prlimit', [`--nofile=${opts.openFiles}:${opts.openFiles}`, process.execPath, ...args]] : [process.execPath, args];
  const proc = spawn(cmd, argv, {
    cwd: ROOT,
    // AF_HTTP_PORT 0: the HTTP gateway on a free port, so a busy 8080 cannot fail the test.
    env: { ...process.env, NATS_URL: natsUrl, AF_LOG_LEVEL: 'warn', AF_HTTP_PORT: '0', ...env },
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

  const readyAt = await new Promise<number>((resolve, reject) => {
    let line = '';
    const timer = setTimeout(() => fail(new Error(`engine process did not become ready within ${READY_TIMEOUT_MS} ms:\n${output.trim()}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      capture(chunk);
      line += chunk.toString('utf8');
      const lines = line.split('\n');
      line = lines.pop() ?? '';
      if (lines.some((l) => /"ready"\s*:\s*true/.test(l))) {
        clearTimeout(timer);
        proc.stdout!.off('data', onData);
        proc.stdout!.on('data', capture);
        resolve(Date.now());
      }
    };
    const fail = (err: Error) => {
      clearTimeout(timer);
      kill('SIGKILL');
      reject(err);
    };
    proc.stdout!.on('data', onData);
    void exited.then((x) => fail(new Error(`engine process exited before it was ready (${x.signal ?? `code ${x.code}`}):\n${output.trim()}`)));
  });

  let stopping: Promise<EngineExit> | undefined;
  return {
    proc,
    pid: proc.pid!,
    spawnedAt,
    readyAt,
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
