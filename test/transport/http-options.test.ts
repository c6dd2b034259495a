import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startNode } from '../../src/server.js';
import { accessKeysFromEnv, parseAccessKeys } from '../../src/transport/access-keys.js';
import { defaultMaxConnections, httpOptionsFromCli, isLoopback, resolveHttpOptions } from '../../src/transport/http-options.js';

describe('HTTP gateway options', () => {
  it('defaults to 127.0.0.1:8080; env, then flags, override', () => {
    expect(resolveHttpOptions({}, {})).toMatchObject({ host: '127.0.0.1', port: 8080, maxBodyBytes: 1024 * 1024 });
    expect(resolveHttpOptions({}, { AF_HTTP_PORT: '9001', AF_HTTP_HOST: 'localhost' })).toMatchObject({ host: 'localhost', port: 9001 });
    expect(httpOptionsFromCli(['--http-port', '7000'], { AF_HTTP_PORT: '9001' })).toEqual({ port: 7000 });
    expect(httpOptionsFromCli(['--http-port=0', '--http-host=::1'], {})).toEqual({ host: '::1', port: 0 });
    expect(httpOptionsFromCli([], { AF_HTTP_HOST: '127.0.0.2' })).toEqual({ host: '127.0.0.2', port: 8080 });
    expect(() => httpOptionsFromCli(['--http-port', 'x'], {})).toThrow(/--http-port must be a port number/);
    expect(() => resolveHttpOptions({}, { AF_HTTP_PORT: '70000' })).toThrow(/AF_HTTP_PORT/);
  });

  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) expect(isLoopback(h), h).toBe(false);
  });

  it('refuses a non-loopback host without access keys, with a clear message, before connecting anywhere', async () => {
    expect(() => resolveHttpOptions({ host: '0.0.0.0' }, {})).toThrow(/refusing to serve the HTTP gateway on 0\.0\.0\.0 without access keys/);
    expect(resolveHttpOptions({ host: '0.0.0.0' }, { AF_ACCESS_KEYS: 'AKID1:s1' }).accessKeys.get('AKID1')).toBe('s1');
    await expect(startNode({ natsUrl: 'nats://127.0.0.1:1', http: { host: '0.0.0.0', port: 0, accessKeys: {} } }))
      .rejects.toThrow(/without access keys/);
  });

  it('reads keys from AF_ACCESS_KEYS and AF_ACCESS_KEYS_FILE, never echoing a secret', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'af-keys-')), 'keys');
    writeFileSync(file, '# operators\nAKIDFILE:fileSecret/+=\n\n');
    const keys = accessKeysFromEnv({ AF_ACCESS_KEYS: 'AKID1:s1, AKID2:s2', AF_ACCESS_KEYS_FILE: file });
    expect([...keys]).toEqual([['AKID1', 's1'], ['AKID2', 's2'], ['AKIDFILE', 'fileSecret/+=']]);
    expect(() => parseAccessKeys('AKID1:s1,nosecret', 'AF_ACCESS_KEYS')).toThrow('AF_ACCESS_KEYS: entry 2 is not AKID:SECRET');
    expect(() => parseAccessKeys('AKID1:topsecret,AKID1:other', 'X')).toThrow(/listed twice/);
    expect(() => parseAccessKeys('AKID1:topsecret,AKID1:other', 'X')).not.toThrow(/topsecret/);
    expect(() => accessKeysFromEnv({ AF_ACCESS_KEYS_FILE: join(file, 'missing') })).toThrow(/AF_ACCESS_KEYS_FILE: cannot read/);
  });

  it('caps connections below the open-file limit and times out slow requests', () => {
    expect(defaultMaxConnections(20_000)).toBe(8192);
    expect(defaultMaxConnections(2000)).toBe(1500);
    expect(defaultMaxConnections(undefined)).toBe(8192);
    expect(resolveHttpOptions({}, { AF_HTTP_MAX_CONNECTIONS: '100', AF_HTTP_REQUEST_TIMEOUT_MS: '4000' })).toMatchObject({ maxConnections: 100, requestTimeoutMs: 4000 });
    expect(resolveHttpOptions({}, {})).toMatchObject({ requestTimeoutMs: 10_000 });
    expect(() => resolveHttpOptions({}, { AF_HTTP_MAX_CONNECTIONS: '0' })).toThrow(/AF_HTTP_MAX_CONNECTIONS must be an integer ≥ 1/);
    expect(() => resolveHttpOptions({ requestTimeoutMs: 10 }, {})).toThrow(/requestTimeoutMs must be an integer ≥ 1000/);
  });
});
