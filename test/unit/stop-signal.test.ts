import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPEAT_WINDOW_MS } from '../../src/stop-signal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX_LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the slow-stop fixture, sends `signals` (each after its delay in ms), and reports how it ended. */
async function run(signals: [NodeJS.Signals, number][], stopMs = 5000) {
  const proc = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'test', 'fixtures', 'slow-stop.ts')], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, STOP_MS: String(stopMs) },
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
  proc.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const until = Date.now() + 20_000;
  while (!stdout.includes('ready') && Date.now() < until) await sleep(20);
  const t0 = Date.now();
  for (const [signal, delay] of signals) {
    await sleep(delay);
    proc.kill(signal);
  }
  const end = await ended;
  return { ...end, stdout, stderr, ms: Date.now() - t0 };
}

describe('untilStopSignal: the stop signals of npm start, npm run serve and npm run cluster', () => {
  it('Ctrl-C again a second after the first exits at once with 130, and exit handlers still run', async () => {
    const r = await run([['SIGINT', 0], ['SIGINT', REPEAT_WINDOW_MS + 200]]);
    expect(r).toMatchObject({ code: 130, signal: null });
    expect(r.stdout).toContain('stopping on SIGINT');
    expect(r.stdout).not.toContain('stopped');
    expect(r.stdout).toContain('exit handler ran (130)');
    expect(r.stderr).toContain('Ctrl-C again: exiting now');
    expect(r.ms).toBeLessThan(4000);
  }, 30_000);

  it('the same Ctrl-C twice (a terminal and tsx both deliver it) is one stop, which finishes', async () => {
    const r = await run([['SIGINT', 0], ['SIGINT', 20]], 1500);
    expect(r).toMatchObject({ code: 0, signal: null });
    expect(r.stdout).toContain('stopped');
    expect(r.stdout).toContain('exit handler ran (0)');
    expect(r.stderr).toBe('Ctrl-C: stopping gracefully (Ctrl-C again to exit at once)\n');
  }, 30_000);

  it('SIGTERM while stopping says so and lets the graceful stop finish', async () => {
    const r = await run([['SIGINT', 0], ['SIGTERM', REPEAT_WINDOW_MS + 200]], 2500);
    expect(r).toMatchObject({ code: 0, signal: null });
    expect(r.stdout).toContain('stopped');
    expect(r.stderr).toContain('SIGTERM while stopping: the graceful stop goes on');
  }, 30_000);

  it('says at once that a SIGTERM stops it', async () => {
    const r = await run([['SIGTERM', 0]], 500);
    expect(r).toMatchObject({ code: 0, signal: null });
    expect(r.stderr).toBe('SIGTERM: stopping gracefully (Ctrl-C again to exit at once)\n');
  }, 30_000);
});
