import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'af_console';
/** How long a console session lasts (ms). */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** A verified session: the access key it was opened with, and when it ends (epoch ms). */
export interface ConsoleSession {
  accessKeyId: string;
  expires: number;
}

/**
 * Console sessions when the gateway has access keys: the key id and secret, checked once at login,
 * are exchanged for a cookie `<payload>.<hmac>` (payload: key id and expiry), HMAC-SHA256-signed
 * with a node secret (the console derives it from the cluster's task-token key, so every node of a
 * cluster takes the cookie and it survives restarts) and the key's own secret (a
 * key removed or given a new secret ends its sessions). HttpOnly, SameSite=Strict, Path=/.
 */
export class ConsoleSessions {
  constructor(
    private readonly keys: ReadonlyMap<string, string>,
    private readonly nodeSecret: Buffer = randomBytes(32),
    private readonly ttlMs = SESSION_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cookie value for a right key id and secret; undefined for a wrong one. */
  login(accessKeyId: string, secret: string): string | undefined {
    const known = this.keys.get(accessKeyId);
    if (known === undefined || !sameText(known, secret)) return undefined;
    const payload = Buffer.from(JSON.stringify({ k: accessKeyId, e: this.now() + this.ttlMs })).toString('base64url');
    return `${payload}.${this.sign(payload, known)}`;
  }

  /** The session a request's Cookie header proves, if any. */
  verify(cookieHeader: string | undefined): ConsoleSession | undefined {
    const value = cookieValue(cookieHeader, SESSION_COOKIE);
    if (!value) return undefined;
    const dot = value.indexOf('.');
    if (dot < 1) return undefined;
    const payload = value.slice(0, dot);
    let parsed: { k?: unknown; e?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k?: unknown; e?: unknown };
    } catch {
      return undefined;
    }
    if (typeof parsed.k !== 'string' || typeof parsed.e !== 'number') return undefined;
    const secret = this.keys.get(parsed.k);
    if (secret === undefined || !sameText(this.sign(payload, secret), value.slice(dot + 1))) return undefined;
    if (parsed.e <= this.now()) return undefined;
    return { accessKeyId: parsed.k, expires: parsed.e };
  }

  /** Set-Cookie for a new session (or, with `value` undefined, one that ends it). */
  setCookie(value: string | undefined, secure: boolean): string {
    const attrs = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
    return value === undefined ? `${SESSION_COOKIE}=; Max-Age=0; ${attrs}` : `${SESSION_COOKIE}=${value}; Max-Age=${Math.floor(this.ttlMs / 1000)}; ${attrs}`;
  }

  private sign(payload: string, keySecret: string): string {
    return createHmac('sha256', this.nodeSecret).update(payload).update('\0').update(keySecret).digest('base64url');
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
