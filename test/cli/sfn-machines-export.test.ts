import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/actorflow.js');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, AF_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    proc.once('error', reject);
    proc.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'af-sfn-cli-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('actorflow machines export --definition', () => {
  it('prints the XState JSON compiled from a States Language file', async () => {
    const file = join(dir, 'def.json');
    await writeFile(file, JSON.stringify({
      StartAt: 'Prepare',
      States: { Prepare: { Type: 'Pass', Next: 'Nap' }, Nap: { Type: 'Wait', Seconds: 5, Next: 'Done' }, Done: { Type: 'Succeed' } },
    }));
    const r = await run(['machines', 'export', '--definition', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { id: string; states: Record<string, unknown> };
    expect(typeof json.id).toBe('string');
    expect(Object.keys(json.states).length).toBeGreaterThan(0);
    expect(r.stdout).toContain('Nap');
  });
});
