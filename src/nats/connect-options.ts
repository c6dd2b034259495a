import { accessSync, constants } from 'node:fs';
import type { ConnectionOptions } from '@nats-io/transport-node';

/**
 * Credentials and TLS of one NATS connection (engine node, SDK client, CLI). All optional: with none,
 * the connection is anonymous and in plain text, as against a nats-server without auth.
 */
export interface NatsAuth {
  /** NATS user (NATS_USER); needs `password`. */
  user?: string;
  /** NATS password (NATS_PASSWORD). */
  password?: string;
  /** PEM file of the CA that signed the server's certificate (NATS_CA); turns TLS on. */
  caFile?: string;
  /** Client certificate PEM for mutual TLS (NATS_CERT); needs `keyFile`. */
  certFile?: string;
  /** Private key PEM of the client certificate (NATS_KEY). */
  keyFile?: string;
}

/** The users `nats.conf` defines, and the development passwords `npm start` gives them. */
export const NATS_USERS = {
  engine: { user: 'engine', passwordEnv: 'AF_NATS_ENGINE_PASSWORD', devPassword: 'actorflow-dev-engine' },
  worker: { user: 'worker', passwordEnv: 'AF_NATS_WORKER_PASSWORD', devPassword: 'actorflow-dev-worker' },
} as const;

/**
 * Inbox prefix of engine connections. Workers may subscribe to `_INBOX.>` (their replies arrive
 * there); the engine's own replies (JetStream API, KV reads, owner calls) go elsewhere so no worker
 * can read them.
 */
export const ENGINE_INBOX_PREFIX = '_AF_ENGINE_INBOX';

/** `<prefix>USER`, `<prefix>PASSWORD`, `<prefix>CA`, `<prefix>CERT`, `<prefix>KEY` (default prefix `NATS_`). */
export function natsAuthFromEnv(env: NodeJS.ProcessEnv = process.env, prefix = 'NATS_'): NatsAuth {
  const pick = (name: string) => (env[`${prefix}${name}`] ?? '') || undefined;
  const auth: NatsAuth = {
    user: pick('USER'), password: pick('PASSWORD'), caFile: pick('CA'), certFile: pick('CERT'), keyFile: pick('KEY'),
  };
  return Object.fromEntries(Object.entries(auth).filter(([, v]) => v !== undefined)) as NatsAuth;
}

/** The development credentials of one `nats.conf` user: its password from the env, else the dev default. */
export function devUser(role: keyof typeof NATS_USERS, env: NodeJS.ProcessEnv = process.env): NatsAuth {
  const u = NATS_USERS[role];
  return { user: u.user, password: env[u.passwordEnv] || u.devPassword };
}

function readable(file: string, what: string): string {
  try {
    accessSync(file, constants.R_OK);
  } catch (e) {
    throw new Error(`${what}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { cause: e });
  }
  return file;
}

/**
 * Checks `auth` once and turns it into nats.js connect options (`user`/`pass`, `tls`). A `tls://`
 * server URL without a CA file uses the system's CAs. Throws with the variable to fix.
 */
export function connectionAuth(servers: string, auth: NatsAuth = {}): Pick<ConnectionOptions, 'user' | 'pass' | 'tls'> {
  if ((auth.user === undefined) !== (auth.password === undefined)) {
    throw new Error('NATS_USER and NATS_PASSWORD go together: set both or neither');
  }
  if ((auth.certFile === undefined) !== (auth.keyFile === undefined)) {
    throw new Error('NATS_CERT and NATS_KEY go together: a client certificate needs its key');
  }
  const wantsTls = auth.caFile !== undefined || auth.certFile !== undefined || /(^|,)\s*tls:\/\//.test(servers);
  const tls = !wantsTls ? undefined : {
    ...(auth.caFile ? { caFile: readable(auth.caFile, 'NATS_CA') } : {}),
    ...(auth.certFile ? { certFile: readable(auth.certFile, 'NATS_CERT'), keyFile: readable(auth.keyFile!, 'NATS_KEY') } : {}),
  };
  return {
    ...(auth.user !== undefined ? { user: auth.user, pass: auth.password } : {}),
    ...(tls ? { tls } : {}),
  };
}
