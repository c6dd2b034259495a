import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config.js';
import { validateDefinition } from '../../src/sfn/asl/validate-definition.js';
import { parseHttpTaskConfig } from '../../src/sfn/integrations/http-config.js';
import { hostAllowed, parseHostPattern } from '../../src/sfn/integrations/http-hosts.js';
import { HttpInvokeIntegration } from '../../src/sfn/integrations/http-invoke.js';

const CONN = 'arn:aws:events:us-east-1:000000000000:connection/Example/1';
const patterns = (...p: string[]) => p.map((t) => parseHostPattern(t, 'test'));

describe('HTTP task host patterns', () => {
  it('match scheme, host and port exactly, with *. subdomains and * ports', () => {
    const p = patterns('https://api.example.com', 'https://*.example.org', 'http://127.0.0.1:*', 'http://LOCALHOST:8080');
    const ok = (u: string) => hostAllowed(new URL(u), p);
    expect(ok('https://api.example.com/v1?x=1')).toBe(true);
    expect(ok('https://api.example.com:443/')).toBe(true);
    expect(ok('https://api.example.com:8443/')).toBe(false);
    expect(ok('http://api.example.com/')).toBe(false);
    expect(ok('https://api.example.com.evil.net/')).toBe(false);
    expect(ok('https://a.b.example.org/')).toBe(true);
    expect(ok('https://example.org/')).toBe(false);
    expect(ok('https://evilexample.org/')).toBe(false);
    expect(ok('http://127.0.0.1:1234/')).toBe(true);
    expect(ok('http://127.0.0.2:1234/')).toBe(false);
    expect(ok('http://localhost:8080/')).toBe(true);
  });

  it('refuse what is not a pattern, with the place it was found', () => {
    for (const bad of ['api.example.com', 'https://api.example.com/path', 'ftp://x', 'https://*', 'https://u@x.com', 'https://x.com:70000']) {
      expect(() => parseHostPattern(bad, 'AllowedHosts[0]')).toThrow(/AllowedHosts\[0\]/);
    }
  });
});

describe('HTTP task configuration', () => {
  it('reads EventBridge-shaped connections and refuses bad ones', () => {
    const c = parseHttpTaskConfig({
      AllowedHosts: ['https://api.example.com'],
      Connections: { [CONN]: { AuthorizationType: 'BASIC', AuthParameters: { BasicAuthParameters: { Username: 'u', Password: 'p' } }, AllowedHosts: ['https://other.example.com'] } },
    });
    expect(c.connections.get(CONN)?.auth).toEqual({ type: 'BASIC', username: 'u', password: 'p' });
    expect(c.connections.get(CONN)?.allowedHosts?.map((h) => h.text)).toEqual(['https://other.example.com']);
    expect(() => parseHttpTaskConfig({ Connections: { 'not-an-arn': {} } })).toThrow(/not a connection ARN/);
    expect(() => parseHttpTaskConfig({ Connections: { [CONN]: { AuthorizationType: 'MAGIC', AuthParameters: {} } } })).toThrow(/AuthorizationType must be/);
    expect(() => parseHttpTaskConfig({ Connections: { [CONN]: { AuthorizationType: 'API_KEY', AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'k' } } } } }))
      .toThrow(/ApiKeyValue must be a non-empty string/);
    expect(() => parseHttpTaskConfig({ AllowedHosts: 'https://x.com' })).toThrow(/AllowedHosts must be an array/);
  });

  it('comes from the file AF_SFN_HTTP_CONFIG names; without one no host is allowed', () => {
    expect(resolveOptions({}, {}).sfnHttp.allowedHosts).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'af-http-'));
    try {
      const file = join(dir, 'http.json');
      writeFileSync(file, JSON.stringify({ AllowedHosts: ['http://127.0.0.1:*'] }));
      expect(resolveOptions({}, { AF_SFN_HTTP_CONFIG: file }).sfnHttp.allowedHosts.map((h) => h.text)).toEqual(['http://127.0.0.1:*']);
      writeFileSync(file, '{ nope');
      expect(() => resolveOptions({}, { AF_SFN_HTTP_CONFIG: file })).toThrow(/AF_SFN_HTTP_CONFIG.*is not JSON/);
      expect(() => resolveOptions({}, { AF_SFN_HTTP_CONFIG: join(dir, 'missing.json') })).toThrow(/cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('resolves the Lambda endpoint into the node configuration', () => {
    expect(resolveOptions({}, {}).sfnLambda).toBeUndefined();
    const c = resolveOptions({}, { AF_SFN_LAMBDA_ENDPOINT: 'http://127.0.0.1:3001', AF_SFN_LAMBDA_ACCESS_KEY_ID: 'k', AF_SFN_LAMBDA_SECRET_ACCESS_KEY: 's', AF_REGION: 'eu-central-1' });
    expect([c.sfnLambda?.endpoint.href, c.sfnLambda?.region]).toEqual(['http://127.0.0.1:3001/', 'eu-central-1']);
  });
});

describe('HTTP task definition checks', () => {
  const http = new HttpInvokeIntegration();
  it('answer what a literal Parameters object gets wrong', () => {
    expect(http.check('invoke', { Method: 'GET', Authentication: { ConnectionArn: CONN } })).toBe("The field 'ApiEndpoint' is required but was missing");
    expect(http.check('invoke', { 'ApiEndpoint.$': '$.url', Method: 'FETCH', Authentication: { ConnectionArn: CONN } })).toMatch(/'Method' must be one of GET, POST/);
    expect(http.check('invoke', { ApiEndpoint: 'https://x.com', Method: 'GET', Authentication: {} })).toBe("The field 'Authentication.ConnectionArn' is required but was missing");
    expect(http.check('invoke', { ApiEndpoint: 'https://x.com', Method: 'GET', Authentication: { ConnectionArn: CONN }, Headers: { Host: 'y' } })).toMatch(/'Host' is not supported/);
    expect(http.check('invoke', { ApiEndpoint: 'https://x.com', Method: 'GET', Authentication: { ConnectionArn: CONN }, Transform: { RequestBodyEncoding: 'GZIP' } })).toMatch(/NONE or URL_ENCODED/);
    expect(http.check('invoke', { 'ApiEndpoint.$': '$.u', 'Method.$': '$.m', Authentication: { 'ConnectionArn.$': '$.c' } })).toBeUndefined();
  });
});

describe('HTTP task error names in Retry and Catch', () => {
  const definition = (names: string[]) => ({
    StartAt: 'Call',
    States: {
      Call: {
        Type: 'Task', Resource: 'arn:aws:states:::http:invoke', End: true,
        Parameters: { ApiEndpoint: 'https://api.example.com', Method: 'GET', Authentication: { ConnectionArn: CONN } },
        Retry: [{ ErrorEquals: names }],
      },
    },
  });
  it('are predefined: States.Http.Socket and States.Http.StatusCode.<code>', () => {
    expect(() => validateDefinition(definition(['States.Http.Socket', 'States.Http.StatusCode.503', 'States.Http.StatusCode.404']))).not.toThrow();
  });
  it('do not open the States. namespace wider', () => {
    expect(() => validateDefinition(definition(['States.Http.StatusCode.5xx']))).toThrow(/is not a predefined error name/);
    expect(() => validateDefinition(definition(['States.Http.Other']))).toThrow(/is not a predefined error name/);
  });
});
