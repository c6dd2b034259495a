import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedNats, embeddedNatsOptionsFromEnv, type EmbeddedNats } from '../../src/embedded-nats.js';
import { durabilityFromEnv, withDurability } from '../../src/nats/durability.js';
import { freePort } from '../helpers/nats-cluster.js';

describe('AF_DURABILITY', () => {
  it('is default or fsync, and nothing else', () => {
    expect(durabilityFromEnv({})).toBe('default');
    expect(durabilityFromEnv({ AF_DURABILITY: 'FSYNC' })).toBe('fsync');
    expect(() => durabilityFromEnv({ AF_DURABILITY: 'always' })).toThrow(/AF_DURABILITY must be "default" or "fsync"/);
  });

  it('puts sync_interval: always into the jetstream block, and only for fsync', () => {
    const conf = 'listen: 127.0.0.1:4222\njetstream {\n  store_dir: ".data/js"\n}\n';
    expect(withDurability(conf, 'default')).toBe(conf);
    expect(withDurability(conf, 'fsync')).toMatch(/jetstream \{\n.*\n  sync_interval: always\n  store_dir/);
    expect(withDurability('listen: 127.0.0.1:4222\n', 'fsync')).toBe('listen: 127.0.0.1:4222\n');
  });

  it('AF_NATS_PORT picks the embedded server port', () => {
    expect(embeddedNatsOptionsFromEnv({}).port).toBe(4222);
    expect(embeddedNatsOptionsFromEnv({ AF_NATS_PORT: '14222' }).port).toBe(14222);
    expect(() => embeddedNatsOptionsFromEnv({ AF_NATS_PORT: 'x' })).toThrow(/AF_NATS_PORT/);
  });

  it('AF_NATS_STORE_DIR moves the embedded server\'s store', () => {
    expect(embeddedNatsOptionsFromEnv({}).storeDir).toBeUndefined();
    expect(embeddedNatsOptionsFromEnv({ AF_NATS_STORE_DIR: '/tmp/af-js' }).storeDir).toBe('/tmp/af-js');
  });

  describe('reaches the embedded nats-server (its /varz)', () => {
    const started: { nats: EmbeddedNats; dir: string }[] = [];
    afterAll(async () => {
      for (const s of started) { await s.nats.stop(); await rm(s.dir, { recursive: true, force: true }); }
    });
    const varz = async (durability: 'default' | 'fsync') => {
      const dir = await mkdtemp(join(tmpdir(), 'af-durability-'));
      const [port, httpPort] = [await freePort(), await freePort()];
      const nats = await startEmbeddedNats({ port, httpPort, durability, storeDir: join(dir, 'js') });
      started.push({ nats, dir });
      expect(nats.url).toBe(`nats://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${httpPort}/varz`);
      return (await res.json()) as { jetstream: { config: { sync_always?: boolean; store_dir: string } } };
    };

    it('fsync: every append is synced (sync_always)', async () => {
      const v = await varz('fsync');
      expect(v.jetstream.config.sync_always).toBe(true);
    });

    it('default: the server syncs on its interval', async () => {
      const v = await varz('default');
      expect(v.jetstream.config.sync_always ?? false).toBe(false);
    });
  });
});
