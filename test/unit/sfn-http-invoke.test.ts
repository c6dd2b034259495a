import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHttpTaskConfig } from '../../src/sfn/integrations/http-config.js';
import { HttpInvokeIntegration, MAX_HTTP_RESPONSE_BYTES } from '../../src/sfn/integrations/http-invoke.js';
import { readServiceResource, type IntegrationCall } from '../../src/sfn/integrations/integration.js';
import { sendJson, startLocalHttpServer, type LocalHttpServer } from '../helpers/local-http-server.js';

const KEY_CONN = 'arn:aws:events:us-east-1:000000000000:connection/Keyed/1';
const BASIC_CONN = 'arn:aws:events:us-east-1:000000000000:connection/Basic/1';
const SCOPED_CONN = 'arn:aws:events:us-east-1:000000000000:connection/Scoped/1';
const OAUTH_CONN = 'arn:aws:events:us-east-1:000000000000:connection/OAuth/1';

let n = 0;
function call(parameters: unknown, extra: Partial<IntegrationCall> = {}): IntegrationCall {
  return {
    resourceArn: 'arn:aws:states:::http:invoke', service: readServiceResource('arn:aws:states:::http:invoke')!, parameters,
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:sm:run', stateName: 'Call', taskKey: `a#${++n}`,
    signal: new AbortController().signal, ...extra,
  };
}

let api: LocalHttpServer;
let other: LocalHttpServer;
let tokens: LocalHttpServer;
let http: HttpInvokeIntegration;

beforeAll(async () => {
  api = await startLocalHttpServer((req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/echo') return sendJson(res, 200, { method: req.method, url: req.url, body: req.body.toString() }, { 'x-multi': 'a', 'set-cookie': 'c=1' });
    if (path === '/unavailable') return sendJson(res, 503, { message: 'try later' });
    if (path === '/text') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('plain words'); return; }
    if (path === '/huge') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('x'.repeat(MAX_HTTP_RESPONSE_BYTES + 1)); return; }
    if (path === '/chunked-huge') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 40; i++) res.write('y'.repeat(8192));
      res.end();
      return;
    }
    if (path === '/to-other') { res.writeHead(302, { location: `${other.origin}/landing` }); res.end(); return; }
    if (path === '/to-self') { res.writeHead(307, { location: '/echo?moved=1' }); res.end(); return; }
    if (path === '/silent') return; // never answers
    sendJson(res, 404, { message: 'no such path' });
  });
  other = await startLocalHttpServer((req, res) => sendJson(res, 200, { landed: true, auth: req.headers.authorization ?? null }));
  tokens = await startLocalHttpServer((req, res) => sendJson(res, 200, { access_token: `tok-${tokens.seen.length}`, expires_in: 3600, saw: req.body.toString() }));
  http = new HttpInvokeIntegration(parseHttpTaskConfig({
    AllowedHosts: [api.origin],
    Connections: {
      [KEY_CONN]: {
        AuthorizationType: 'API_KEY',
        AuthParameters: {
          ApiKeyAuthParameters: { ApiKeyName: 'x-api-key', ApiKeyValue: 'key-123' },
          InvocationHttpParameters: { HeaderParameters: [{ Key: 'x-from-connection', Value: 'conn' }], QueryStringParameters: [{ Key: 'tenant', Value: 't1' }] },
        },
      },
      [BASIC_CONN]: {
        AuthorizationType: 'BASIC',
        AuthParameters: { BasicAuthParameters: { Username: 'user', Password: 'pass' }, InvocationHttpParameters: { BodyParameters: [{ Key: 'added', Value: 'by-connection' }] } },
      },
      [SCOPED_CONN]: {
        AuthorizationType: 'API_KEY', AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'x-api-key', ApiKeyValue: 'scoped' } }, AllowedHosts: [other.origin],
      },
      [OAUTH_CONN]: {
        AuthorizationType: 'OAUTH_CLIENT_CREDENTIALS',
        AuthParameters: { OAuthParameters: { AuthorizationEndpoint: `${tokens.origin}/token`, HttpMethod: 'POST', ClientParameters: { ClientID: 'cid', ClientSecret: 'csecret' } } },
      },
    },
  }));
});

afterAll(async () => { await Promise.all([api?.stop(), other?.stop(), tokens?.stop()]); });

const params = (path: string, extra: object = {}, conn = KEY_CONN) => ({ ApiEndpoint: `${api.origin}${path}`, Method: 'GET', Authentication: { ConnectionArn: conn }, ...extra });

describe('http:invoke against a local server', () => {
  it('sends method, query, headers and the connection credentials; answers AWS output shape', async () => {
    const r = await http.invoke(call(params('/echo?fixed=1', { Headers: { 'x-custom': 'v', 'x-from-connection': 'definition' }, QueryParameters: { q: 'a b', list: ['x', 'y'] } })));
    expect(r.ok).toBe(true);
    const seen = api.seen.at(-1)!;
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/echo?fixed=1&q=a+b&list=x&list=y&tenant=t1');
    expect(seen.headers['x-api-key']).toBe('key-123');
    expect(seen.headers['x-custom']).toBe('v');
    expect(seen.headers['x-from-connection']).toBe('conn'); // the connection's parameters win
    expect(seen.headers['user-agent']).toBe('Amazon|StepFunctions|HttpInvoke|us-east-1');
    const out = (r as { output: { Headers: Record<string, string[]>; ResponseBody: unknown; StatusCode: number; StatusText: string } }).output;
    expect(out.StatusCode).toBe(200);
    expect(out.StatusText).toBe('OK');
    expect(out.Headers['content-type']).toEqual(['application/json']);
    expect(out.Headers['x-multi']).toEqual(['a']);
    expect(out.ResponseBody).toEqual({ method: 'GET', url: seen.url, body: '' });
  });

  it('posts a JSON body with Basic auth, merging the connection body parameters', async () => {
    const r = await http.invoke(call(params('/echo', { Method: 'POST', RequestBody: { order: 7, items: ['a'] } }, BASIC_CONN)));
    expect(r.ok).toBe(true);
    const seen = api.seen.at(-1)!;
    expect(seen.headers.authorization).toBe(`Basic ${Buffer.from('user:pass').toString('base64')}`);
    expect(seen.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(JSON.parse(seen.body.toString())).toEqual({ order: 7, items: ['a'], added: 'by-connection' });
  });

  it('URL-encodes the body with the ArrayFormat asked for', async () => {
    const body = { a: ['x', 'y'], o: { k: 'v w' } };
    const expected = { INDICES: 'a[0]=x&a[1]=y&o[k]=v%20w', REPEAT: 'a=x&a=y&o[k]=v%20w', COMMAS: 'a=x,y&o[k]=v%20w', BRACKETS: 'a[]=x&a[]=y&o[k]=v%20w' };
    for (const [fmt, text] of Object.entries(expected)) {
      const r = await http.invoke(call(params('/echo', {
        Method: 'PUT', RequestBody: body, Headers: { 'Content-Type': 'text/plain' }, Transform: { RequestBodyEncoding: 'URL_ENCODED', RequestEncodingOptions: { ArrayFormat: fmt } },
      })));
      expect(r.ok).toBe(true);
      expect(api.seen.at(-1)!.body.toString()).toBe(text);
      expect(api.seen.at(-1)!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    }
  });

  it('keeps a non-JSON body as text', async () => {
    const r = await http.invoke(call(params('/text')));
    expect(r).toMatchObject({ ok: true, output: { ResponseBody: 'plain words', StatusCode: 200 } });
  });

  it('fails a non-2xx answer with States.Http.StatusCode.<code> and the response as cause', async () => {
    const r = await http.invoke(call(params('/unavailable')));
    expect(r.ok).toBe(false);
    const f = r as { error: string; cause: string };
    expect(f.error).toBe('States.Http.StatusCode.503');
    expect(JSON.parse(f.cause)).toMatchObject({ StatusCode: 503, StatusText: 'Service Unavailable', ResponseBody: { message: 'try later' } });
  });
});

describe('http:invoke calls only what the configuration allows', () => {
  it('refuses an unlisted host without sending a byte', async () => {
    const before = other.connections;
    const r = await http.invoke(call({ ApiEndpoint: `${other.origin}/x`, Method: 'GET', Authentication: { ConnectionArn: KEY_CONN } }));
    expect(r).toMatchObject({ ok: false, error: 'States.Permissions' });
    expect((r as { cause: string }).cause).toContain('no request was sent');
    expect(other.connections).toBe(before);
  });

  it('with no configuration calls nothing', async () => {
    const none = new HttpInvokeIntegration();
    const before = api.connections;
    const r = await none.invoke(call(params('/echo')));
    expect(r).toMatchObject({ ok: false, error: 'Events.ConnectionResource.ResourceNotFound' });
    expect(api.connections).toBe(before);
  });

  it("sends a connection only to its own hosts, not to the engine's list", async () => {
    const before = api.connections;
    const r = await http.invoke(call(params('/echo', {}, SCOPED_CONN)));
    expect(r).toMatchObject({ ok: false, error: 'States.Permissions' });
    expect(api.connections).toBe(before);
    const ok = await http.invoke(call({ ApiEndpoint: `${other.origin}/y`, Method: 'GET', Authentication: { ConnectionArn: SCOPED_CONN } }));
    expect(ok).toMatchObject({ ok: true, output: { ResponseBody: { landed: true } } });
  });

  it('does not follow a redirect to an unlisted host', async () => {
    const before = other.connections;
    const r = await http.invoke(call(params('/to-other')));
    expect(r).toMatchObject({ ok: false, error: 'States.Permissions' });
    expect(other.connections).toBe(before);
  });

  it('follows a redirect on an allowed host', async () => {
    const r = await http.invoke(call(params('/to-self', { Method: 'POST', RequestBody: { k: 1 } })));
    expect(r).toMatchObject({ ok: true, output: { StatusCode: 200 } });
    const seen = api.seen.at(-1)!;
    expect(seen.url).toBe('/echo?moved=1'); // the Location as given
    expect(seen.method).toBe('POST'); // 307 keeps the method and the body
    expect(JSON.parse(seen.body.toString())).toEqual({ k: 1 });
  });

  it('refuses headers AWS refuses, and user info in the URL, before sending', async () => {
    const before = api.connections;
    for (const h of ['Authorization', 'Host', 'x-amz-date', 'X-Forwarded-For', 'Content-Length']) {
      const r = await http.invoke(call(params('/echo', { Headers: { [h]: 'v' } })));
      expect(r).toMatchObject({ ok: false, error: 'States.Runtime' });
    }
    const smuggled = await http.invoke(call(params('/echo', { Headers: { 'x-ok': 'v\r\nx-api-key: mine' } })));
    expect(smuggled).toMatchObject({ ok: false, error: 'States.Runtime' });
    const u = await http.invoke(call({ ...params('/echo'), ApiEndpoint: `http://me:pw@127.0.0.1:${api.port}/echo` }));
    expect(u).toMatchObject({ ok: false, error: 'States.Runtime' });
    expect(api.connections).toBe(before);
  });
});

describe('http:invoke limits', () => {
  it('fails a response over 256 KiB with States.DataLimitExceeded (declared or streamed)', async () => {
    for (const path of ['/huge', '/chunked-huge']) {
      const r = await http.invoke(call(params(path)));
      expect(r).toMatchObject({ ok: false, error: 'States.DataLimitExceeded' });
    }
  });

  it("bounds the request by the task's deadline", async () => {
    const started = Date.now();
    const r = await http.invoke(call(params('/silent'), { deadline: Date.now() + 300 }));
    expect(r).toMatchObject({ ok: false, error: 'States.Timeout' });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('ends the request when the task is aborted', async () => {
    const ac = new AbortController();
    const pending = http.invoke(call(params('/silent'), { signal: ac.signal }));
    setTimeout(() => ac.abort(), 100);
    expect((await pending).ok).toBe(false);
  });

  it('names a connection failure States.Http.Socket', async () => {
    const closed = await startLocalHttpServer(() => {});
    const port = closed.port;
    await closed.stop();
    const conf = parseHttpTaskConfig({
      AllowedHosts: [`http://127.0.0.1:${port}`],
      Connections: { [KEY_CONN]: { AuthorizationType: 'API_KEY', AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'k', ApiKeyValue: 'v' } } } },
    });
    const r = await new HttpInvokeIntegration(conf).invoke(call({ ApiEndpoint: `http://127.0.0.1:${port}/`, Method: 'GET', Authentication: { ConnectionArn: KEY_CONN } }));
    expect(r).toMatchObject({ ok: false, error: 'States.Http.Socket' });
  });
});

describe('http:invoke with OAuth client credentials', () => {
  it('gets a token once from the configured endpoint and sends it as Bearer', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await http.invoke(call(params('/echo', {}, OAUTH_CONN)));
      expect(r.ok).toBe(true);
      expect(api.seen.at(-1)!.headers.authorization).toBe('Bearer tok-1');
    }
    expect(tokens.seen).toHaveLength(1);
    expect(tokens.seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('cid:csecret').toString('base64')}`);
    expect(tokens.seen[0]!.body.toString()).toBe('grant_type=client_credentials');
  });
});
