import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readClusterStatus } from '../../src/cluster/cluster-status.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { startSecuredNats, type SecuredNats } from '../helpers/secured-nats.js';

/**
 * `actorflow cluster status` reads the lease and cluster buckets, which only the engine user may
 * read. A refusal must say so, not pass for a cluster that has no node yet.
 */
let nats: SecuredNats;
const conns: NatsConnection[] = [];
beforeAll(async () => { nats = await startSecuredNats(); });
afterAll(async () => {
  for (const c of conns) await c.close();
  await nats?.stop();
});

const as = async (who: 'engine' | 'worker') => {
  const auth = nats[who];
  const c = await connect({ servers: nats.server.url, user: auth.user, pass: auth.password });
  conns.push(c);
  return c;
};

describe('cluster status and the rights to read it', () => {
  it('the engine user, before any clustered node: no partitions, no nodes', async () => {
    expect(await readClusterStatus(await as('engine'))).toEqual({ partitions: undefined, nodes: [], leases: [] });
  });

  it('the worker user is refused, and the CLI says so with exit code 1', async () => {
    await expect(readClusterStatus(await as('worker'))).rejects.toThrow(/Permissions Violation/);
    const r = await runCliProcess(['cluster', 'status', '--nats', nats.server.url], { env: { NATS_USER: 'worker', NATS_PASSWORD: nats.worker.password! } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ERROR .*Permissions Violation/m);
    expect(r.stdout).not.toMatch(/partitions: not set/);
  });
});
