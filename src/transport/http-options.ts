import { readFileSync } from 'node:fs';
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
  /**
   * Open connections held at most (AF_HTTP_MAX_CONNECTIONS, default 8192 or 3/4 of the process's
   * open-file limit when that is lower). At the cap a new connection replaces the longest-idle one.
   */
  maxConnections?: number;
  /**
   * Time for a request's headers and body to arrive (AF_HTTP_REQUEST_TIMEOUT_MS, default 10,000; headers
   * get half of it). A held poll is not cut: the clock stops once the request is in.
   */
  requestTimeoutMs?: number;
}

export interface HttpGatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly accessKeys: AccessKeys;
  /** Domain lists of the keys limited to some domains (`*` = all, and Step Functions); other keys are unrestricted. */
  readonly accessDomains: ReadonlyMap<string, ReadonlySet<string>>;
  readonly maxBodyBytes: number;
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
}

export const DEFAULT_HTTP_PORT = 8080;
export const MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 8192;

/**
 * The default connection cap: 8192, or three quarters of the process's open-file limit when that is
 * lower (the rest stays for NATS, the store and the console), so the cap is reached before the limit.
 */
export function defaultMaxConnections(limits = readOpenFileLimit()): number {
  return limits === undefined ? DEFAULT_MAX_CONNECTIONS : Math.max(16, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor(limits * 0.75)));
}

/** The soft open-file limit from /proc (Linux); undefined elsewhere. */
function readOpenFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isInteger(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** Literal loopback addresses and `localhost`; any other name counts as reachable from outside. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return /^::ffff:127\./.test(h);
}

function intFrom(value: string | undefined, fallback: number, name: string, min: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
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
  const maxConnections = o.maxConnections ?? intFrom(env.AF_HTTP_MAX_CONNECTIONS, defaultMaxConnections(), 'AF_HTTP_MAX_CONNECTIONS', 1);
  const requestTimeoutMs = o.requestTimeoutMs ?? intFrom(env.AF_HTTP_REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, 'AF_HTTP_REQUEST_TIMEOUT_MS', 1000);
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error(`maxConnections must be an integer ≥ 1, got ${maxConnections}`);
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 1000) throw new Error(`requestTimeoutMs must be an integer ≥ 1000, got ${requestTimeoutMs}`);
  return Object.freeze({
    maxConnections, requestTimeoutMs,
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
