import { isIP } from 'node:net';
import { AccessKeyTable, accessKeysFromEnv } from './access-keys.js';
import type { AccessKeys } from './sigv4.js';

/** Options of the AWS JSON 1.0 HTTP gateway; all optional. */
export interface HttpGatewayOptions {
  /** Default 127.0.0.1 (AF_HTTP_HOST). A host that is not loopback needs access keys. */
  host?: string;
  /** Default 8080 (AF_HTTP_PORT); 0 picks a free port (see `HttpGateway.port`). */
  port?: number;
  /**
   * Keys to verify SigV4 with; default: AF_ACCESS_KEYS and AF_ACCESS_KEYS_FILE. None = any signature,
   * loopback only. An `AccessKeyTable` (from `parseAccessKeys`) also carries per-key domain lists.
   */
  accessKeys?: AccessKeys | Readonly<Record<string, string>>;
  /** Largest request body accepted (default 1 MiB); larger ones get 413. */
  maxBodyBytes?: number;
}

export interface HttpGatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly accessKeys: AccessKeys;
  /** Domain lists of the keys limited to some domains (`*` = all, and Step Functions); other keys are unrestricted. */
  readonly accessDomains: ReadonlyMap<string, ReadonlySet<string>>;
  readonly maxBodyBytes: number;
}

export const DEFAULT_HTTP_PORT = 8080;
export const MAX_BODY_BYTES = 1024 * 1024;

/** Literal loopback addresses and `localhost`; any other name counts as reachable from outside. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return /^::ffff:127\./.test(h);
}

function port(value: unknown, source: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65_535) {
    throw new Error(`${source} must be a port number from 0 to 65535, got ${String(value)}`);
  }
  return n;
}

/** Resolves the gateway options once at start-up; refuses a non-loopback host without access keys. */
export function resolveHttpOptions(o: HttpGatewayOptions = {}, env: NodeJS.ProcessEnv = process.env): HttpGatewayConfig {
  const host = o.host ?? env.AF_HTTP_HOST ?? '127.0.0.1';
  if (host.trim() === '') throw new Error('AF_HTTP_HOST must not be empty (use 0.0.0.0 to listen on every interface)');
  const keys = o.accessKeys === undefined ? accessKeysFromEnv(env)
    : o.accessKeys instanceof Map ? o.accessKeys : new Map(Object.entries(o.accessKeys));
  if (keys.size === 0 && !isLoopback(host)) {
    throw new Error(`refusing to serve the HTTP gateway on ${host} without access keys: anyone could call it. `
      + 'Set AF_ACCESS_KEYS="AKID:SECRET,…" or AF_ACCESS_KEYS_FILE, or bind to 127.0.0.1.');
  }
  const maxBodyBytes = o.maxBodyBytes ?? MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1024) throw new Error(`maxBodyBytes must be an integer ≥ 1024, got ${maxBodyBytes}`);
  return Object.freeze({
    host,
    port: o.port ?? port(env.AF_HTTP_PORT ?? DEFAULT_HTTP_PORT, 'AF_HTTP_PORT'),
    accessKeys: keys,
    accessDomains: keys instanceof AccessKeyTable ? keys.domains : new Map(),
    maxBodyBytes,
  });
}

/** `--http-host H` / `--http-port N` (or `=value`) from the command line, over AF_HTTP_HOST / AF_HTTP_PORT. */
export function httpOptionsFromCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): HttpGatewayOptions {
  const flag = (name: string): string | undefined => {
    let value: string | undefined;
    argv.forEach((a, i) => {
      if (a === name) value = argv[i + 1];
      else if (a.startsWith(`${name}=`)) value = a.slice(name.length + 1);
    });
    if (value === undefined && argv.includes(name)) throw new Error(`${name} needs a value`);
    return value;
  };
  const host = flag('--http-host') ?? env.AF_HTTP_HOST;
  const p = flag('--http-port');
  return {
    ...(host !== undefined ? { host } : {}),
    port: p !== undefined ? port(p, '--http-port') : port(env.AF_HTTP_PORT ?? DEFAULT_HTTP_PORT, 'AF_HTTP_PORT'),
  };
}
