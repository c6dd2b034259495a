import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { mkdirSync } from 'node:fs';
import { devUser, NATS_USERS } from './nats/connect-options.js';
import { natsServerBinary } from './nats/server-binary.js';

export interface EmbeddedNats {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs `nats-server -c nats.conf` (JetStream, store under .data/) for `npm start`; the server
 * stops with the node. Fails with an actionable message if the port is taken or the binary missing.
 * The users of nats.conf get AF_NATS_ENGINE_PASSWORD / AF_NATS_WORKER_PASSWORD, else the development
 * passwords; connect with `devUser('engine')` / `devUser('worker')`.
 */
export async function startEmbeddedNats(confPath = 'nats.conf', url = 'nats://127.0.0.1:4222'): Promise<EmbeddedNats> {
  try {
    const probe = await connect({ servers: url, reconnect: false, timeout: 500 });
    await probe.close();
    throw new Error(`something already listens on ${url}; stop it, or set NATS_URL=${url} to use it`);
  } catch (e) {
    if ((e as Error).message.startsWith('something already')) throw e;
    // A server that wants credentials still answered: the port is taken.
    if ((e as Error).name === 'AuthorizationError') throw new Error(`something already listens on ${url}; stop it, or set NATS_URL=${url} to use it`, { cause: e });
  }
  mkdirSync('.data', { recursive: true });
  const env = { ...process.env };
  for (const role of ['engine', 'worker'] as const) env[NATS_USERS[role].passwordEnv] = devUser(role, process.env).password;
  const proc: ChildProcess = spawn(natsServerBinary(), ['-c', confPath], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start in 10 s:\n${stderr}`)), 10_000);
    proc.once('error', (e) => { clearTimeout(timer); reject(new Error(`cannot run nats-server (${e.message}); install it: apt-get install nats-server`)); });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`nats-server exited with ${code}:\n${stderr}`)); });
    const check = setInterval(() => {
      if (stderr.includes('Server is ready')) { clearInterval(check); clearTimeout(timer); proc.removeAllListeners('exit'); resolve(); }
    }, 20);
  });
  return {
    url,
    stop: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}
