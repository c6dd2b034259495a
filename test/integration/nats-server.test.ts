import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { freePort } from '../helpers/nats-cluster.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

describe('test helper: startNatsServer', () => {
  let server: NatsServerHandle | undefined;
  let nc: NatsConnection | undefined;

  afterEach(async () => {
    await nc?.close().catch(() => {});
    nc = undefined;
    await server?.stop();
    server = undefined;
  });

  it('starts an isolated JetStream server and cleans up after itself', async () => {
    server = await startNatsServer();
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    expect(existsSync(dirname(server.storeDir))).toBe(true);

    nc = await connect({ servers: server.url });

    // Core NATS request/reply round trip.
    const sub = nc.subscribe('helper.echo');
    void (async () => {
      for await (const m of sub) m.respond(`echo:${m.string()}`);
    })();
    const reply = await nc.request('helper.echo', 'ping', { timeout: 2_000 });
    expect(reply.string()).toBe('echo:ping');

    // JetStream: add a stream and publish to it.
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'HELPER', subjects: ['helper.js.>'] });
    const js = jetstream(nc);
    const ack = await js.publish('helper.js.one', 'hello');
    expect(ack.stream).toBe('HELPER');
    expect(ack.seq).toBe(1);
    expect(existsSync(server.storeDir)).toBe(true);

    await nc.close();
    nc = undefined;

    const tmpDir = dirname(server.storeDir);
    const proc = server.proc;
    await server.stop();
    server = undefined;
    expect(proc.exitCode !== null || proc.signalCode !== null).toBe(true);
    expect(existsSync(tmpDir)).toBe(false);
  });

  it('rejects with the server output when nats-server exits early', async () => {
    await expect(startNatsServer({ args: ['--no-such-flag'] })).rejects.toThrow(/exited early/);
  });

  it('kill() simulates a crash; stop() still cleans up', async () => {
    server = await startNatsServer();
    const s = server;
    s.kill('SIGKILL');
    await until(() => s.proc.signalCode !== null, { timeoutMs: 5_000, message: 'nats-server to die' });
    await s.stop();
    expect(existsSync(s.storeDir)).toBe(false);
  });

  it('durability fsync runs the server with sync_interval: always (its /varz), in the temp store', async () => {
    const varz = async (durability: 'default' | 'fsync') => {
      const monitor = await freePort();
      server = await startNatsServer({ durability, args: ['-m', String(monitor)] });
      const v = (await (await fetch(`http://127.0.0.1:${monitor}/varz`)).json()) as { jetstream: { config: { sync_always?: boolean; store_dir: string } } };
      expect(v.jetstream.config.store_dir.startsWith(server.storeDir)).toBe(true);
      await server.stop();
      return v.jetstream.config.sync_always ?? false;
    };
    expect(await varz('fsync')).toBe(true);
    expect(await varz('default')).toBe(false);
  });
});

describe('test helper: until', () => {
  it('resolves once the condition holds', async () => {
    let n = 0;
    await until(() => ++n >= 3, { intervalMs: 1 });
    expect(n).toBe(3);
  });

  it('throws a clear error on timeout', async () => {
    await expect(until(() => false, { timeoutMs: 50, message: 'the impossible' })).rejects.toThrow(
      /timed out after 50 ms waiting for the impossible/,
    );
  });
});
