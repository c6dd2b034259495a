import { describe, expect, it } from 'vitest';
import { connectionAuth, devUser, natsAuthFromEnv } from '../../src/nats/connect-options.js';

describe('NATS connection credentials and TLS options', () => {
  it('reads NATS_USER, NATS_PASSWORD, NATS_CA, NATS_CERT, NATS_KEY (or another prefix), skipping empty values', () => {
    expect(natsAuthFromEnv({ NATS_USER: 'worker', NATS_PASSWORD: 'pw', NATS_CA: '/ca.pem', NATS_CERT: '' }))
      .toEqual({ user: 'worker', password: 'pw', caFile: '/ca.pem' });
    expect(natsAuthFromEnv({ AF_DEMO_NATS_USER: 'w', AF_DEMO_NATS_PASSWORD: 'p', NATS_USER: 'engine' }, 'AF_DEMO_NATS_')).toEqual({ user: 'w', password: 'p' });
    expect(natsAuthFromEnv({})).toEqual({});
  });

  it('gives npm start the development passwords unless the server variables are set', () => {
    expect(devUser('engine', {})).toEqual({ user: 'engine', password: 'actorflow-dev-engine' });
    expect(devUser('worker', { AF_NATS_WORKER_PASSWORD: 'real' })).toEqual({ user: 'worker', password: 'real' });
  });

  it('maps to nats.js options: user/pass, tls with files; tls:// alone asks for TLS with the system CAs', () => {
    expect(connectionAuth('nats://127.0.0.1:4222', {})).toEqual({});
    expect(connectionAuth('nats://127.0.0.1:4222', { user: 'u', password: 'p' })).toEqual({ user: 'u', pass: 'p' });
    expect(connectionAuth('tls://nats.example:4222', {})).toEqual({ tls: {} });
    expect(connectionAuth('nats://a:4222,tls://b:4222', {})).toEqual({ tls: {} });
    expect(connectionAuth('nats://127.0.0.1:4222', { caFile: import.meta.filename })).toEqual({ tls: { caFile: import.meta.filename } });
  });

  it('refuses half-given credentials and unreadable files with the variable to fix', () => {
    expect(() => connectionAuth('nats://x', { user: 'u' })).toThrow('NATS_USER and NATS_PASSWORD go together');
    expect(() => connectionAuth('nats://x', { certFile: import.meta.filename })).toThrow('NATS_CERT and NATS_KEY go together');
    expect(() => connectionAuth('tls://x', { caFile: '/nonexistent/ca.pem' })).toThrow('NATS_CA: cannot read /nonexistent/ca.pem (ENOENT)');
    expect(() => connectionAuth('tls://x', { certFile: import.meta.filename, keyFile: '/nonexistent/k' })).toThrow(/^NATS_KEY: cannot read/);
  });
});
