import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { RequestOne } from '@nats-io/nats-core/internal';
import { installRequestFastPath } from '../../src/nats/request-fast-path.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

let server: NatsServerHandle;
let nc: NatsConnection;
beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url, noAsyncTraces: true });
});
afterAll(async () => { await nc?.close(); await server?.stop(); });

describe('the request fast path (nats.js RequestOne)', () => {
  it('applies to the nats.js in use', () => {
    expect(installRequestFastPath()).toBe(true);
    expect(installRequestFastPath()).toBe(true); // once only
  });

  it('answers, times out and reports no responders as before, and builds no Error for an answer', async () => {
    installRequestFastPath();
    const sub = nc.subscribe('fast.echo', { callback: (_e, m) => { m.respond(m.data); } });
    const cancel = RequestOne.prototype.cancel;
    let cancels = 0;
    RequestOne.prototype.cancel = function (this: RequestOne, err?: Error) { cancels++; cancel.call(this, err); };
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => nc.request('fast.echo', new TextEncoder().encode(String(i)), { timeout: 2000 })));
      expect(answers.map((m) => new TextDecoder().decode(m.data))).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
      expect(cancels).toBe(0);
      await expect(nc.request('fast.nobody', new Uint8Array(), { timeout: 2000 })).rejects.toMatchObject({ name: expect.stringMatching(/NoResponders|RequestError/) });
      const silent = nc.subscribe('fast.silent', { callback: () => undefined });
      await expect(nc.request('fast.silent', new Uint8Array(), { timeout: 200 })).rejects.toMatchObject({ name: 'TimeoutError' });
      silent.unsubscribe();
    } finally {
      RequestOne.prototype.cancel = cancel;
      sub.unsubscribe();
    }
  });
});
