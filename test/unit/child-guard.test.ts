import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { guardsOf } from '../helpers/embedded-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX_LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Running (a zombie, gone but not yet reaped by whoever inherited it, counts as gone). */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z/.test(stat);
}
const children: number[] = [];
afterAll(() => { for (const pid of children) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } } });

/** Runs the fixture; resolves once it printed its child's pid. */
async function guarded(env: Record<string, string> = {}) {
  const proc = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'test', 'fixtures', 'guarded-child.ts')],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const until = Date.now() + 20_000;
  while (!/child \d+/.test(out) && Date.now() < until) await sleep(20);
  const child = Number(/child (\d+)/.exec(out)![1]);
  children.push(child);
  return { proc, child, exited, out: () => out };
}

/** Waits up to `ms` for `pid` to be gone; true when it is. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (await alive(pid) && Date.now() < until) await sleep(20);
  return !(await alive(pid));
}

describe('stopsWhenWeDie: a child of its own process group stops when its parent is killed outright', () => {
  it('a SIGKILL of the parent (no exit handler runs) gets the child a SIGTERM', async () => {
    const { proc, child, exited } = await guarded();
    expect(await alive(child)).toBe(true);
    expect(await guardsOf(child)).toHaveLength(1);
    proc.kill('SIGKILL');
    await exited;
    expect(await goneWithin(child, 5_000)).toBe(true);
  });

  it('with afterSeconds the SIGTERM waits that long', async () => {
    const { proc, child, exited } = await guarded({ AFTER_SECONDS: '2' });
    proc.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();
    expect(await goneWithin(child, 8_000)).toBe(true);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(1_500);
  });

  it('a dismissed guard leaves the child alone, and is gone', async () => {
    const { proc, child, exited } = await guarded({ DISMISS: '1' });
    const until = Date.now() + 5_000;
    while ((await guardsOf(child)).length > 0 && Date.now() < until) await sleep(20);
    expect(await guardsOf(child)).toEqual([]);
    proc.kill('SIGKILL');
    await exited;
    await sleep(300);
    expect(await alive(child)).toBe(true);
  });

  it("the child's own exit dismisses its guard, which then can signal no reused pid", async () => {
    const { proc, child, exited, out } = await guarded();
    process.kill(child, 'SIGKILL');
    const until = Date.now() + 5_000;
    while (!out().includes('child exited') && Date.now() < until) await sleep(20);
    while ((await guardsOf(child)).length > 0 && Date.now() < until) await sleep(20);
    expect(await guardsOf(child)).toEqual([]);
    proc.kill('SIGKILL');
    await exited;
  });
});
