import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import type { NatsAuth } from '../../src/nats/connect-options.js';
import { startNode, type EngineNode, type StartOptions } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
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

/** nats.conf's users, one engine node (engine user, HTTP for /metrics), an SDK client and a raw connection as the worker. */
export interface SecuredEngine {
  nats: SecuredNats;
  node: EngineNode;
  client: ActorFlowClient;
  /** A plain NATS connection as the worker user (publishes with reply subjects of its choosing). */
  raw: NatsConnection;
  /** Stops the node, runs `whileDown`, and starts a new one on the same NATS (recovery from storage). */
  restart(whileDown?: () => Promise<void>): Promise<EngineNode>;
  stop(): Promise<void>;
}

export async function startSecuredEngine(opts: { partitions?: number } = {}): Promise<SecuredEngine> {
  const nats = await startSecuredNats();
  const options = (): StartOptions => ({
    natsUrl: nats.server.url, natsAuth: nats.engine, partitions: opts.partitions ?? 4,
    logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }), http: { port: 0, accessKeys: {} },
  });
  const e: SecuredEngine = {
    nats,
    node: await startNode(options()),
    client: await ActorFlowClient.connect({ servers: nats.server.url, auth: nats.worker }),
    raw: await connect({ servers: nats.server.url, user: nats.worker.user, pass: nats.worker.password }),
    async restart(whileDown) {
      await e.node.stop();
      await whileDown?.();
      e.node = await startNode(options());
      return e.node;
    },
    async stop() {
      await e.raw.close();
      await e.client.close();
      await e.node.stop();
      await nats.stop();
    },
  };
  return e;
}
