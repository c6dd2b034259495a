import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { originOf } from './http-hosts.js';

/**
 * One HTTP exchange with the guards the HTTP task needs: every hop (the first request and each
 * redirect) is checked against the allowed hosts before a byte is sent; credentials are dropped
 * when a redirect leaves the origin; the response body is read up to a cap; the exchange ends at
 * a timeout or when the task's signal aborts.
 */
export interface SendOptions {
  /** Whether a URL may be called (checked before every hop). */
  allowed(url: URL): boolean;
  timeoutMs: number;
  signal: AbortSignal;
  maxBodyBytes: number;
  maxRedirects: number;
  /** Header names (lower case) holding credentials: not sent on to another origin. */
  secretHeaders: readonly string[];
}

export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names, each with its values in order (AWS's `Headers` shape). */
  readonly headers: Readonly<Record<string, string[]>>;
  /** The same with the names as the server wrote them. */
  readonly casedHeaders: Readonly<Record<string, string[]>>;
  readonly body: Buffer;
}

export type SendOutcome =
  | { kind: 'response'; response: HttpResponse }
  | { kind: 'refused'; url: URL }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'socket'; message: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function headersOf(res: IncomingMessage, cased: boolean): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    (out[cased ? name : name.toLowerCase()] ??= []).push(res.rawHeaders[i + 1]!);
  }
  return out;
}

type Hop = { kind: 'done'; outcome: SendOutcome } | { kind: 'redirect'; status: number; location: string; response: HttpResponse };

function exchange(method: string, url: URL, headers: Record<string, string>, body: Buffer | undefined, o: SendOptions, until: number): Promise<Hop> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (h: Hop) => { if (!settled) { settled = true; clearTimeout(timer); o.signal.removeEventListener('abort', onAbort); resolve(h); } };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let req: ClientRequest;
    try {
      req = send(url, { method, headers: body ? { ...headers, 'content-length': String(body.length) } : headers });
    } catch (e) {
      // node:http refuses a header it cannot send (a configured value with a control character).
      resolve({ kind: 'done', outcome: { kind: 'socket', message: (e as Error).message } });
      return;
    }
    const timer = setTimeout(() => { finish({ kind: 'done', outcome: { kind: 'timeout' } }); req.destroy(); }, Math.max(0, until - Date.now()));
    const onAbort = () => { finish({ kind: 'done', outcome: { kind: 'aborted' } }); req.destroy(); };
    o.signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e: NodeJS.ErrnoException) => finish({ kind: 'done', outcome: { kind: 'socket', message: e.code ? `${e.code}: ${e.message}` : e.message } }));
    req.on('response', (res) => {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > o.maxBodyBytes) {
        finish({ kind: 'done', outcome: { kind: 'too-large', bytes: declared } });
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > o.maxBodyBytes) { finish({ kind: 'done', outcome: { kind: 'too-large', bytes: size } }); res.destroy(); return; }
        chunks.push(c);
      });
      res.on('error', (e) => finish({ kind: 'done', outcome: { kind: 'socket', message: e.message } }));
      res.on('end', () => {
        const response: HttpResponse = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: headersOf(res, false), casedHeaders: headersOf(res, true), body: Buffer.concat(chunks) };
        const location = res.headers.location;
        if (REDIRECTS.has(response.status) && location) finish({ kind: 'redirect', status: response.status, location, response });
        else finish({ kind: 'done', outcome: { kind: 'response', response } });
      });
    });
    if (o.signal.aborted) onAbort();
    else req.end(body);
  });
}

/** Sends the request, following redirects to allowed hosts only. */
export async function sendHttp(method: string, url: URL, headers: Record<string, string>, body: Buffer | undefined, o: SendOptions): Promise<SendOutcome> {
  const until = Date.now() + o.timeoutMs;
  let hopHeaders = headers;
  for (let hop = 0; ; hop++) {
    if (!o.allowed(url)) return { kind: 'refused', url };
    const r = await exchange(method, url, hopHeaders, body, o, until);
    if (r.kind === 'done') return r.outcome;
    let next: URL;
    try { next = new URL(r.location, url); } catch { return { kind: 'response', response: r.response }; }
    if (hop >= o.maxRedirects || (next.protocol !== 'http:' && next.protocol !== 'https:')) return { kind: 'response', response: r.response };
    if (originOf(next) !== originOf(url)) {
      hopHeaders = Object.fromEntries(Object.entries(hopHeaders).filter(([k]) => !o.secretHeaders.includes(k.toLowerCase())));
    }
    // As browsers do: 303 (and 301/302 after a POST) turn into a GET without the body.
    if (r.status === 303 || ((r.status === 301 || r.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      hopHeaders = Object.fromEntries(Object.entries(hopHeaders).filter(([k]) => k.toLowerCase() !== 'content-type'));
    }
    url = next;
  }
}
