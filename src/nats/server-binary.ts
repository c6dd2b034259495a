import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from './package-root.js';

/** The package's root folder, where `scripts/ensure-deps.sh` unpacks its tools. */
const ROOT = packageRoot();

/**
 * Where `scripts/ensure-deps.sh` unpacks a current nats-server (≥ 2.10) when the system's is older:
 * `.tools/nats-server/usr/sbin/nats-server` (git-ignored).
 */
export const BUNDLED_NATS_SERVER = join(ROOT, '.tools', 'nats-server', 'usr', 'sbin', 'nats-server');

/**
 * The nats-server binary every part of ActorFlow runs (`npm start`'s embedded server, `npm run
 * cluster`, the tests): `$NATS_SERVER_BIN`, then the one ensure-deps unpacked, then PATH, then
 * Debian's /usr/sbin (not on PATH for ordinary users).
 */
export function natsServerBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NATS_SERVER_BIN) return env.NATS_SERVER_BIN;
  if (existsSync(BUNDLED_NATS_SERVER)) return BUNDLED_NATS_SERVER;
  for (const dir of [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/usr/local/sbin']) {
    const candidate = join(dir, 'nats-server');
    if (existsSync(candidate)) return candidate;
  }
  return 'nats-server';
}
