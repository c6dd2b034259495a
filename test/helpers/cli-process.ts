import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin/actorflow.js');

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** Runs the `actorflow` CLI in a child process to its end; NATS_URL is cleared so only --nats (or `env`) points it at a server. */
export function runCliProcess(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, AF_LOG_LEVEL: 'warn', ...opts.env };
    if (!opts.env?.NATS_URL) delete env.NATS_URL;
    const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => proc.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    proc.once('error', reject);
    proc.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
