import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/nats-cluster.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX_LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

const portOpen = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

describe('npm start (engine, demo and embedded nats-server) stopped with Ctrl-C', () => {
  let dir = '';
  afterAll(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  it('stops the engine first, then the server, with no error output', async () => {
    // Its own folder (nats.conf's store is relative to the cwd), so no developer's .data is touched.
    dir = await mkdtemp(join(tmpdir(), 'af-embedded-'));
    await copyFile(join(ROOT, 'nats.conf'), join(dir, 'nats.conf'));
    const natsPort = await freePort();
    // A process group of its own, as a terminal's foreground job: Ctrl-C signals every process in it.
    const env: NodeJS.ProcessEnv = { ...process.env, AF_NATS_PORT: String(natsPort), AF_HTTP_PORT: '0' };
    delete env.NATS_URL;
    const proc = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src', 'main.ts')], {
      cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
    proc.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 45_000;
    // `npm start`: the engine, the demo's decider and worker polling, then it waits for Ctrl-C.
    while (!stdout.includes('press Ctrl-C') && Date.now() < deadline && proc.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(stdout, stderr).toContain('press Ctrl-C');
    const before = stdout.length;
    expect(await portOpen(natsPort)).toBe(true);

    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/Error|\n\s+at /);
    // Nothing logged at warn (40) or above while stopping, and no stack trace.
    const stopping = stdout.slice(before);
    expect(stopping).not.toMatch(/"level":(4|5|6)0|\n\s+at /);
    // The embedded server went with it.
    const until = Date.now() + 10_000;
    while (await portOpen(natsPort) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await portOpen(natsPort)).toBe(false);
  }, 90_000);
});
