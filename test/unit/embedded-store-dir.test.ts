import { describe, expect, it } from 'vitest';
import { embeddedStoreDir } from '../../src/cli/commands/engine.js';
import { olderThanTrusted, oldServerWarning } from '../../src/nats/server-version.js';

describe('actorflow serve: where the embedded server keeps its store', () => {
  const root = '/srv/app/node_modules/actorflow';

  it('in the folder the command runs in, not in the installed package (a reinstall empties node_modules)', () => {
    expect(embeddedStoreDir('/srv/app', root, {})).toBe('/srv/app/.data/jetstream');
  });

  it("in the repository itself, nats.conf's own .data/jetstream, as npm start has it", () => {
    expect(embeddedStoreDir(root, root, {})).toBeUndefined();
    expect(embeddedStoreDir(`${root}/`, root, {})).toBeUndefined();
  });

  it('AF_NATS_STORE_DIR wins, a relative one read from the folder the command runs in', () => {
    expect(embeddedStoreDir('/srv/app', root, { AF_NATS_STORE_DIR: '/var/lib/af' })).toBe('/var/lib/af');
    expect(embeddedStoreDir('/srv/app', root, { AF_NATS_STORE_DIR: 'store' })).toBe('/srv/app/store');
    expect(embeddedStoreDir(root, root, { AF_NATS_STORE_DIR: 'store' })).toBe(`${root}/store`);
  });
});

describe('nats-server versions', () => {
  it.each([
    ['2.9.10', true], ['2.9.25', true], ['1.4.1', true], ['v2.9.0', true],
    ['2.10.0', false], ['2.10.29', false], ['2.15.1', false], ['3.0.0', false], [undefined, false], ['', false], ['nightly', false],
  ])('%s is older than 2.10: %s', (v, older) => {
    expect(olderThanTrusted(v)).toBe(older);
  });

  it('the warning names the version and the way out', () => {
    expect(oldServerWarning('2.9.10')).toMatch(/^nats-server 2\.9\.10 is older than 2\.10: .*scripts\/current-nats-server\.sh/);
  });
});
