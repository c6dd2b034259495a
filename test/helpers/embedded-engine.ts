/** Engines on their embedded nats-server in processes of their own, for the tests of how they start and stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import { freePort } from './nats-cluster.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TSX_LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

export const portOpen = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

/** Waits up to 10 s for every port to close; true when they did. */
export async function closed(...ports: number[]): Promise<boolean> {
  const until = Date.now() + 10_000;
  const anyOpen = async () => (await Promise.all(ports.map(portOpen))).some(Boolean);
  while (await anyOpen() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return !(await anyOpen());
}

/** The engine's environment for an embedded nats-server on `natsPort` (never a NATS_URL of the caller's). */
export function embeddedEnv(natsPort: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AF_NATS_PORT: String(natsPort), AF_HTTP_PORT: '0', ...extra };
  delete env.NATS_URL;
  return env;
}

/**
 * Starts `command` in a process group of its own (as a terminal's foreground job: Ctrl-C signals
 * every process in it) and waits until its output shows `ready`.
 */
export async function startUntil(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, ready: string) {
  const started = startInGroup(command, args, cwd, env);
  const { proc, out } = started;
  const deadline = Date.now() + 45_000;
  while (!out.stdout.includes(ready) && Date.now() < deadline && proc.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  expect(out.stdout, out.stderr).toContain(ready);
  return started;
}

/** Starts `command` in a process group of its own, gathering its output. */
export function startInGroup(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const proc: ChildProcess = spawn(command, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  const out = { stdout: '', stderr: '' };
  proc.stdout!.on('data', (c: Buffer) => { out.stdout += c.toString(); });
  proc.stderr!.on('data', (c: Buffer) => { out.stderr += c.toString(); });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, out, exited };
}

/**
 * The store folders and process groups a describe's tests fill in, removed and killed after them,
 * with any nats-server still running on one of those folders (a group of its own, so only found
 * by its store folder when an engine failed to stop it).
 */
export function cleanedUpAfterAll(): { dirs: string[]; groups: number[] } {
  const dirs: string[] = [];
  const groups: number[] = [];
  afterAll(async () => {
    for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch { /* gone */ } }
    for (const d of dirs) for (const pid of await processesWith('nats-server', d)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  return { dirs, groups };
}

/** Pids of the processes whose command line includes every one of `parts`. */
export async function processesWith(...parts: string[]): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd && parts.every((p) => cmd.includes(p))) found.push(Number(pid));
  }
  return found;
}

/** The guards (src/child-guard.ts) watching `pid`: its pid is their last argument, exactly. */
export async function guardsOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const p of await readdir('/proc').catch(() => [])) {
    const args = (await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    if (args.includes('actorflow-guard') && args.at(-1) === String(pid)) found.push(Number(p));
  }
  return found;
}

/**
 * `actorflow serve` (src/serve.ts) on an embedded nats-server with a store folder of its own, left
 * to `cleanup`: `start()` starts it (again) on the same port and store, and waits until it is ready.
 */
export async function serveOnEmbedded(cleanup: { dirs: string[]; groups: number[] }, prefix: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanup.dirs.push(dir);
  const natsPort = await freePort();
  const env = embeddedEnv(natsPort, { AF_NATS_STORE_DIR: dir, ...extraEnv });
  const start = async () => {
    const started = await startUntil(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src', 'serve.ts')], ROOT, env, '"ready":true');
    cleanup.groups.push(started.proc.pid!);
    return started;
  };
  return { dir, natsPort, start };
}

/** One SWF call over a gateway as raw AWS JSON: its status and body. */
export async function swfCall(http: string, action: string, input: object): Promise<{ status: number; body: any }> {
  const res = await fetch(`${http}/`, {
    method: 'POST', body: JSON.stringify(input),
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `SimpleWorkflowService.${action}` },
  });
  return { status: res.status, body: await res.json() };
}
