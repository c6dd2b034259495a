import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Clients other than our own (boto3, the aws CLI) for tests against the AWS JSON 1.0 gateway. Both
 * are Debian's packages (python3-boto3, awscli), run with /usr/bin/python3 explicitly; a missing one
 * fails the test, it never skips.
 */
export const PYTHON = '/usr/bin/python3';
export const AWS = '/usr/bin/aws';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The caller's environment without its AWS and Python settings, plus dummy credentials. */
function clientEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(AWS_|PYTHON)/.test(k)));
  return {
    ...env,
    AWS_ACCESS_KEY_ID: 'AKIDCLITEST',
    AWS_SECRET_ACCESS_KEY: 'cli-test-secret',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
    // No profile or config of whoever runs the tests may change what the clients send.
    AWS_CONFIG_FILE: '/nonexistent/actorflow-aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/actorflow-aws-credentials',
    AWS_MAX_ATTEMPTS: '1',
  };
}

/** Runs a client; `env` adds to its clean environment (e.g. AWS_DATA_PATH for a model the client predates). */
export function run(cmd: string, args: string[], timeoutMs = 20_000, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { env: { ...clientEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
    const timer = setTimeout(() => { stderr += `\n[killed after ${timeoutMs} ms]`; proc.kill('SIGKILL'); }, timeoutMs);
    proc.once('error', (err) => { stderr += `\nspawn error: ${err.message}`; });
    proc.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** Fails (never skips) with the apt-get line to run when a client is missing. */
export async function requireClient(what: 'boto3' | 'aws'): Promise<void> {
  if (what === 'boto3') {
    if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run \`apt-get install python3 python3-boto3\``);
    const r = await run(PYTHON, ['-c', 'import boto3, botocore']);
    if (r.code !== 0) throw new Error(`${PYTHON} cannot import boto3: run \`apt-get install python3-boto3\`\n${r.stderr.trim()}`);
  } else if (!existsSync(AWS)) {
    throw new Error(`${AWS} is missing: run \`apt-get install awscli\``);
  }
}
