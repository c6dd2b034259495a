import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/nats-cluster.js';
import {
  cleanedUpAfterAll, closed, guardsOf, embeddedEnv, portOpen, processesWith, ROOT, serveOnEmbedded, startInGroup, startUntil, TSX_LOADER,
} from '../helpers/embedded-engine.js';

describe('npm start (engine, demo and embedded nats-server) stopped with Ctrl-C', () => {
  let dir = '';
  afterAll(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  it('stops the engine first, then the server, with no error output', async () => {
    // Its own folder (nats.conf's store is relative to the cwd), so no developer's .data is touched.
    dir = await mkdtemp(join(tmpdir(), 'af-embedded-'));
    await copyFile(join(ROOT, 'nats.conf'), join(dir, 'nats.conf'));
    const natsPort = await freePort();
    // `npm start`: the engine, the demo's decider and worker polling, then it waits for Ctrl-C.
    const { proc, out, exited } = await startUntil(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src', 'main.ts')], dir, embeddedEnv(natsPort), 'press Ctrl-C');
    const before = out.stdout.length;
    expect(await portOpen(natsPort)).toBe(true);

    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(out.stderr).not.toMatch(/Error|\n\s+at /);
    // Nothing logged at warn (40) or above while stopping, and no stack trace.
    expect(out.stdout.slice(before)).not.toMatch(/"level":(4|5|6)0|\n\s+at /);
    // The embedded server went with it.
    expect(await closed(natsPort)).toBe(true);
  }, 90_000);
});

describe('npm run serve stopped by a SIGTERM to the npm process alone (a supervisor, `kill <pid>`)', () => {
  let dir = '';
  let group = 0;
  afterAll(async () => {
    // Whatever the outcome, nothing of this test outlives it: a SIGTERM to the whole group lets the
    // engine stop its nats-server (a group of its own), then what is left is killed.
    if (group) {
      try { process.kill(-group, 'SIGTERM'); } catch { /* gone */ }
      await new Promise((r) => setTimeout(r, 3000));
      try { process.kill(-group, 'SIGKILL'); } catch { /* gone */ }
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reaches the engine, which stops gracefully and takes the embedded server with it', async () => {
    // The signal goes to npm only: npm passes it to its script's shell, which passes nothing on, so
    // without `exec` in the script the engine and its nats-server kept running with no parent.
    dir = await mkdtemp(join(tmpdir(), 'af-serve-'));
    const natsPort = await freePort();
    const env = embeddedEnv(natsPort, { AF_NATS_STORE_DIR: dir, AF_LOG_LEVEL: 'warn' });
    const { proc, out, exited } = await startUntil('npm', ['run', '--silent', 'serve'], ROOT, env, '"ready":true');
    group = proc.pid!;
    const ready = JSON.parse(out.stdout.slice(out.stdout.indexOf('{"ready"')).split('\n')[0]!) as { http: string };
    const httpPort = Number(new URL(ready.http).port);
    expect(await portOpen(natsPort)).toBe(true);
    expect(await portOpen(httpPort)).toBe(true);

    process.kill(proc.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(out.stderr).not.toMatch(/Error|\n\s+at /);
    expect(await closed(httpPort, natsPort)).toBe(true);
    // No process of npm's group is left (the engine was in it; nats-server has a group of its own
    // and its port is closed).
    const alive = () => { try { process.kill(-group, 0); return true; } catch { return false; } };
    const until = Date.now() + 10_000;
    while (alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    group = 0;
  }, 90_000);
});

describe('an engine on its embedded nats-server signalled again while it stops', () => {
  const { dirs, groups } = cleanedUpAfterAll();

  // A second signal while the first's graceful stop runs: Ctrl-C again used to find no handler and
  // kill the engine, and no exit handler stopped its server (left holding its port). Sent apart, or
  // the kernel merges them into one; within a second, and within the ~60 ms stop of an idle node.
  it.each([
    ['Ctrl-C pressed twice is one graceful stop that takes the embedded server with it', 'SIGINT', 10],
    ['a SIGTERM after the Ctrl-C lets the graceful stop finish', 'SIGTERM', 30],
  ] as const)('%s', async (_title, second, gapMs) => {
    const dir = await mkdtemp(join(tmpdir(), 'af-resignal-'));
    dirs.push(dir);
    const natsPort = await freePort();
    const { proc, out, exited } = await startUntil(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src', 'serve.ts')], ROOT, embeddedEnv(natsPort, { AF_NATS_STORE_DIR: dir }), '"ready":true');
    groups.push(proc.pid!);
    expect(await portOpen(natsPort)).toBe(true);
    process.kill(-proc.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, gapMs));
    try { process.kill(-proc.pid!, second); } catch { /* the graceful stop was already over */ }
    expect(await exited).toBe(0);
    expect(out.stdout).toContain('engine node stopped');
    expect(out.stderr).not.toMatch(/\n\s+at /);
    expect(await closed(natsPort)).toBe(true);
  }, 90_000);
});

describe('an engine on its embedded nats-server stopped with Ctrl-C while it starts', () => {
  const { dirs, groups } = cleanedUpAfterAll();

  // The signal comes as soon as the embedded server listens, while the node still starts on it
  // (`npm start` also runs its demo then). With the handlers installed only once the node served,
  // Node's default killed it and the server, a process group of its own, kept holding its port.
  it.each([
    ['actorflow serve', 'serve.ts', '"ready":true'],
    ['npm start', 'main.ts', 'press Ctrl-C'],
  ] as const)('%s stops once started, and takes the server with it', async (_title, program, ready) => {
    const dir = await mkdtemp(join(tmpdir(), 'af-early-'));
    dirs.push(dir);
    await copyFile(join(ROOT, 'nats.conf'), join(dir, 'nats.conf'));
    const natsPort = await freePort();
    const { proc, out, exited } = startInGroup(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src', program)], dir, embeddedEnv(natsPort, { AF_NATS_STORE_DIR: dir }));
    groups.push(proc.pid!);
    const until = Date.now() + 45_000;
    while (!(await portOpen(natsPort)) && Date.now() < until && proc.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    const readyBefore = out.stdout.includes(ready);
    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited, out.stderr).toBe(0);
    expect(readyBefore).toBe(false);  // the signal came while the node started, not after
    expect(out.stdout).toContain('engine node stopped');
    expect(out.stderr).not.toMatch(/\n\s+at /);
    expect(await closed(natsPort)).toBe(true);
  }, 90_000);
});

describe('an engine on its embedded nats-server killed outright (SIGKILL, the OOM killer)', () => {
  const cleanup = cleanedUpAfterAll();

  // No exit handler runs then: the server, a process group of its own, kept its port and store, and
  // the next start failed with "something already listens". The engine's guard now stops it.
  it('leaves no server behind, so the next start on the same port and store serves', async () => {
    const { dir, natsPort, start } = await serveOnEmbedded(cleanup, 'af-killed-');
    const first = await start();
    expect(await processesWith('nats-server', dir)).toHaveLength(1);

    process.kill(first.proc.pid!, 'SIGKILL');
    await first.exited;
    expect(await closed(natsPort)).toBe(true);
    expect(await processesWith('nats-server', dir)).toEqual([]);

    const second = await start();
    const [server] = await processesWith('nats-server', dir);
    expect(await guardsOf(server)).toHaveLength(1);
    // An orderly stop dismisses the guard: nothing is left to signal that pid later.
    process.kill(-second.proc.pid!, 'SIGINT');
    expect(await second.exited, second.out.stderr).toBe(0);
    expect(await closed(natsPort)).toBe(true);
    const until = Date.now() + 5_000;
    while ((await guardsOf(server)).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await guardsOf(server)).toEqual([]);
  }, 120_000);
});
