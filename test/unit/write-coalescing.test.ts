import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { installWriteCoalescing } from '../../src/nats/write-coalescing.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

interface Inner { protocol: { transport: { send(b: Uint8Array): void } } }

/** Counts the socket writes a connection makes while `body` runs. */
async function countWrites(nc: NatsConnection, body: () => Promise<void>): Promise<number> {
  const transport = (nc as unknown as Inner).protocol.transport;
  const send = transport.send;
  let writes = 0;
  transport.send = function (this: unknown, b: Uint8Array) { writes++; send.call(this, b); };
  try { await body(); } finally { transport.send = send; }
  return writes;
}

let server: NatsServerHandle;
let pub: NatsConnection;
let sub: NatsConnection;
beforeAll(async () => {
  expect(installWriteCoalescing()).toBe(true);
  server = await startNatsServer();
  pub = await connect({ servers: server.url, noAsyncTraces: true });
  sub = await connect({ servers: server.url, noAsyncTraces: true });
});
afterAll(async () => { await pub?.close(); await sub?.close(); await server?.stop(); });

describe('write coalescing (nats.js ProtocolHandler)', () => {
  it('is installed once', () => {
    expect(installWriteCoalescing()).toBe(true);
  });

  it('sends what many handlers publish in one event-loop turn in one write, and loses none', async () => {
    const got: string[] = [];
    const s = sub.subscribe('coalesce.many', { callback: (_e, m) => { got.push(m.string()); } });
    await sub.flush();
    const writes = await countWrites(pub, async () => {
      // 100 publishes at different depths of microtask chains, as handlers that await make them:
      // nats.js alone flushes at the first depth and again at each later one.
      await Promise.all(Array.from({ length: 100 }, async (_, i) => {
        for (let k = 0; k < i % 10; k++) await null;
        pub.publish('coalesce.many', String(i));
      }));
      await pub.flush();
    });
    await sub.flush();
    await new Promise((r) => setTimeout(r, 50));
    s.unsubscribe();
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => String(i)).sort((a, b) => Number(a) % 10 - Number(b) % 10));
    expect(writes).toBeLessThanOrEqual(2); // the 100 publishes, and the PING of flush() if it came later
  });

  it('still answers requests and writes past the pending limit at once', async () => {
    const s = sub.subscribe('coalesce.echo', { callback: (_e, m) => { m.respond(m.data); } });
    await sub.flush();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => pub.request('coalesce.echo', String(i), { timeout: 2000 })));
    expect(answers.map((m) => m.string())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    // countWrites stops counting before any setImmediate runs: it sees only writes made inline.
    const small = await countWrites(pub, async () => { pub.publish('coalesce.big', new Uint8Array(1024)); });
    const big = await countWrites(pub, async () => { pub.publish('coalesce.big', new Uint8Array(40 * 1024)); });
    expect(small).toBe(0);
    expect(big).toBe(1);
    s.unsubscribe();
  });

  it('writes what is pending before a connection closes', async () => {
    const got: string[] = [];
    const s = sub.subscribe('coalesce.close', { callback: (_e, m) => { got.push(m.string()); } });
    await sub.flush();
    const last = await connect({ servers: server.url, noAsyncTraces: true });
    for (let i = 0; i < 10; i++) last.publish('coalesce.close', String(i));
    await last.close();
    await sub.flush();
    await new Promise((r) => setTimeout(r, 50));
    s.unsubscribe();
    expect(got).toEqual(Array.from({ length: 10 }, (_, i) => String(i)));
  });
});
