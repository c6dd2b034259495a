import { jetstreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { subjects } from '../../src/nats/subjects.js';
import { useBalancedEngineCluster } from '../helpers/engine-cluster.js';
import { runOrdersThrough } from '../helpers/cluster-load.js';

/**
 * Three nats-servers (JetStream R3) and three clustered engine processes: the nats-server that
 * leads the history stream is SIGKILLed while 300 order workflows run. JetStream elects a new
 * leader; the engines reconnect; no acknowledged event is lost and every workflow completes.
 */
const cluster = useBalancedEngineCluster();

describe('history stream leader SIGKILLed in a 3-server NATS cluster', () => {
  it('no acknowledged event is lost and all 300 workflows complete', async () => {
    const c = cluster();
    const jsm = await jetstreamManager(c.nc);
    const stream = subjects().streams.history;
    const before = await jsm.streams.info(stream);
    expect(before.config.num_replicas).toBe(3);
    let killed = '';
    const { elapsedMs, t } = await runOrdersThrough(c, {
      count: 300, disruptAfter: 60, closeTimeoutMs: 120_000,
      async disrupt(tr) {
        const leader = (await jsm.streams.info(stream)).cluster!.leader!;
        const server = c.nats.servers.find((s) => s.name === leader)!;
        killed = leader;
        const killAt = Date.now();
        server.kill('SIGKILL');
        await server.exited;
        console.log(`SIGKILL nats-server ${leader} (leader of ${stream}) with ${tr.closed.size}/300 completed`);
        // Writes resume once a new leader is elected. A task handed to a poller whose connection died
        // with the server comes back through its 5 s timeout (then a retry), a queued one after the task
        // consumer's ack_wait (30 s): the time budget allows for that on a busy machine.
        const { until } = await import('../helpers/until.js');
        await until(async () => {
          const info = await jsm.streams.info(stream);
          return info.cluster?.leader !== undefined && info.cluster.leader !== leader;
        }, { timeoutMs: 20_000, intervalMs: 200, message: 'a new history stream leader' });
        console.log(`new ${stream} leader ${(await jsm.streams.info(stream)).cluster!.leader} ${Date.now() - killAt} ms after the kill`);
      },
    });
    console.log(`300 workflows in ${elapsedMs} ms with ${killed} killed (${t.activityCompleted.length} activity and ${t.decisionCompleted.length} decision answers acknowledged, all in history)`);
  }, 150_000);
});
