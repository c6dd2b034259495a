import type { HttpAuth } from './http-config.js';
import { urlEncode } from './http-body.js';
import { originOf } from './http-hosts.js';
import { sendHttp } from './http-send.js';

type OAuth = Extract<HttpAuth, { type: 'OAUTH_CLIENT_CREDENTIALS' }>;

/** A token answer may not be larger than this. */
const MAX_TOKEN_BYTES = 64 * 1024;
/** A token is renewed this long before it expires. */
const RENEW_EARLY_MS = 30_000;
/** When the token endpoint gives no expires_in. */
const DEFAULT_LIFETIME_MS = 300_000;

/**
 * OAuth client credentials as EventBridge connections use them: the client ID and secret go as
 * Basic auth to the operator's token endpoint (only there: redirects must stay on its origin) with
 * `grant_type=client_credentials` and the connection's OAuthHttpParameters; the access token is
 * kept per connection until shortly before it expires.
 */
export class OAuthTokens {
  private readonly cache = new Map<string, { token: string; until: number }>();

  /** The bearer token for a connection; throws with the cause's text when none can be had. */
  async token(arn: string, auth: OAuth, signal: AbortSignal, timeoutMs: number): Promise<string> {
    const hit = this.cache.get(arn);
    if (hit && hit.until > Date.now()) return hit.token;
    const url = new URL(auth.tokenUrl);
    for (const [k, v] of Object.entries(auth.params.query)) url.searchParams.set(k, v);
    const form = Buffer.from(urlEncode({ grant_type: 'client_credentials', ...auth.params.body }, 'INDICES'));
    const headers: Record<string, string> = {
      ...auth.params.headers,
      authorization: `Basic ${Buffer.from(`${auth.clientId}:${auth.clientSecret}`).toString('base64')}`,
      accept: 'application/json',
      ...(auth.method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
    };
    const origin = originOf(url);
    const r = await sendHttp(auth.method, url, headers, auth.method === 'GET' ? undefined : form, {
      allowed: (u) => originOf(u) === origin, timeoutMs, signal, maxBodyBytes: MAX_TOKEN_BYTES, maxRedirects: 3, secretHeaders: ['authorization'],
    });
    if (r.kind !== 'response') throw new Error(`The OAuth token request to ${origin} failed (${r.kind === 'socket' ? r.message : r.kind})`);
    const { status, body } = r.response;
    if (status < 200 || status > 299) throw new Error(`The OAuth token endpoint ${origin} answered ${status}`);
    let answer: { access_token?: unknown; expires_in?: unknown };
    try { answer = JSON.parse(body.toString('utf8')) as typeof answer; } catch { throw new Error(`The OAuth token endpoint ${origin} answered no JSON`); }
    if (typeof answer.access_token !== 'string' || answer.access_token === '') throw new Error(`The OAuth token endpoint ${origin} answered no access_token`);
    const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    this.cache.set(arn, { token: answer.access_token, until: Date.now() + Math.max(0, lifetime - RENEW_EARLY_MS) });
    return answer.access_token;
  }
}
