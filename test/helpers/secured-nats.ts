import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsAuth } from '../../src/nats/connect-options.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';

export interface SecuredNats {
  server: NatsServerHandle;
  engine: NatsAuth;
  worker: NatsAuth;
  stop(): Promise<void>;
}

/**
 * nats-server with the users of the shipped nats.conf: its `authorization` block (the rest of that
 * file sets ports and store paths, which the test helper chooses), plus `extra` config text.
 */
export async function startSecuredNats(extra = ''): Promise<SecuredNats> {
  const conf = await readFile(new URL('../../nats.conf', import.meta.url), 'utf8');
  const dir = await mkdtemp(join(tmpdir(), 'actorflow-auth-'));
  const file = join(dir, 'nats.conf');
  await writeFile(file, `${conf.slice(conf.indexOf('authorization {'))}\n${extra}\n`);
  // A letter first: nats-server parses an environment value that starts with digits as a number (`98e7…` fails).
  const passwords = { engine: `p${randomBytes(12).toString('hex')}`, worker: `p${randomBytes(12).toString('hex')}` };
  const server = await startNatsServer({
    args: ['-c', file], env: { AF_NATS_ENGINE_PASSWORD: passwords.engine, AF_NATS_WORKER_PASSWORD: passwords.worker },
  });
  return {
    server,
    engine: { user: 'engine', password: passwords.engine },
    worker: { user: 'worker', password: passwords.worker },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
