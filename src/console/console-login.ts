import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { HttpGateway } from '../transport/http-gateway.js';
import { readBody } from '../transport/http-body.js';
import { ConsoleSessions, type ConsoleSession } from './console-session.js';

const MAX_LOGIN_BYTES = 4096;
export const REFUSED_MESSAGE = 'Sign-in refused: this node has no access key with that id and secret. Check both and try again.';

/**
 * The console's sign-in when the gateway has access keys: POST /console/session with
 * `{"accessKeyId","secretAccessKey"}` (application/json) sets the session cookie; POST
 * /console/session/logout clears it. The gateway then takes the cookie in place of a SigV4
 * signature for the console's own AWS requests (POST /), with the key's domain limits.
 */
export function mountLogin(http: HttpGateway, nodeSecret: Buffer, log: Logger): ConsoleSessions {
  const sessions = new ConsoleSessions(http.config.accessKeys, nodeSecret);
  http.sessionCaller = (req) => sessions.verify(req.headers.cookie)?.accessKeyId;
  const secure = (req: IncomingMessage) => req.headers['x-forwarded-proto'] === 'https';

  http.addPostRoute('/console/session', async (req, res) => {
    // JSON only: a form of another site cannot post it without a CORS preflight this node never grants.
    if (!/^application\/json\s*(;.*)?$/i.test(req.headers['content-type'] ?? '')) {
      req.resume();
      return reply(res, 415, { message: 'Sign in with a JSON body (Content-Type: application/json)' });
    }
    const body = await readBody(req, MAX_LOGIN_BYTES);
    if (body === 'aborted') return;
    if (body === 'too-large') return reply(res, 413, { message: `Sign-in body is larger than ${MAX_LOGIN_BYTES} bytes` });
    let input: { accessKeyId?: unknown; secretAccessKey?: unknown };
    try {
      input = JSON.parse(body.toString('utf8')) as typeof input;
    } catch {
      return reply(res, 400, { message: 'Sign-in body is not valid JSON' });
    }
    const id = typeof input?.accessKeyId === 'string' ? input.accessKeyId.trim() : '';
    const secret = typeof input?.secretAccessKey === 'string' ? input.secretAccessKey : '';
    if (id === '' || secret === '') return reply(res, 400, { message: 'Enter both the access key id and the secret access key' });
    const cookie = sessions.login(id, secret);
    if (cookie === undefined) {
      log.warn({ accessKeyId: id.slice(0, 128) }, 'console sign-in refused');
      return reply(res, 403, { __type: 'UnrecognizedClientException', message: REFUSED_MESSAGE });
    }
    log.info({ accessKeyId: id }, 'console sign-in');
    reply(res, 200, { accessKeyId: id }, sessions.setCookie(cookie, secure(req)));
  });

  http.addPostRoute('/console/session/logout', (req, res) => {
    req.resume();
    reply(res, 200, {}, sessions.setCookie(undefined, secure(req)));
  });
  return sessions;
}

/** GET /console/api/session: who is signed in, and the domains the key may use (`undefined`: all). */
export function sessionInfo(session: ConsoleSession, domains: ReadonlySet<string> | undefined): unknown {
  return { accessKeyId: session.accessKeyId, expires: new Date(session.expires).toISOString(), domains: domains ? [...domains] : undefined };
}

function reply(res: ServerResponse, status: number, value: unknown, cookie?: string): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store',
    ...(cookie ? { 'set-cookie': cookie } : {}),
  });
  res.end(body);
}
