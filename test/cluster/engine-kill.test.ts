import { describe, expect, it } from 'vitest';
import { engineName, useBalancedEngineCluster } from '../helpers/engine-cluster.js';
import { runOrdersThrough } from '../helpers/cluster-load.js';

/**
 * Three nats-servers (JetStream R3) and three clustered engine processes: one engine is SIGKILLed
 * while 300 order workflows run. Its leases expire, the survivors take its partitions, rebuild
 * their open runs from history and serve them again; every workflow completes with a whole history.
 */
const cluster = useBalancedEngineCluster();

describe('engine node SIGKILLed in a 3-node cluster', () => {
  it('300 workflows complete; the dead node\'s partitions are served again within 10 s', async () => {
    const c = cluster();
    const victim = 1;
    let servedMs = 0;
    let lost: number[] = [];
    const { elapsedMs, t } = await runOrdersThrough(c, {
      count: 300, disruptAfter: 60, closeTimeoutMs: 60_000,
      async disrupt(tr) {
        lost = await c.partitionsOf(engineName(victim));
        expect(lost.length).toBeGreaterThan(0);
        const killAt = Date.now();
        c.engines[victim]!.kill('SIGKILL');
        await c.engines[victim]!.exited;
        servedMs = (await c.servedAgain(lost, 20_000)) - killAt;
        console.log(`SIGKILL ${engineName(victim)} with ${tr.closed.size}/300 completed; its partitions [${lost.join(',')}] served again ${servedMs} ms after the kill`);
      },
    });
    console.log(`300 workflows in ${elapsedMs} ms (${t.closed.size} closes seen by the deciders)`);
    const takeovers = c.engines.filter((_, i) => i !== victim).flatMap((e) => e.output().split('\n').filter((l) => l.includes('partition taken over')));
    console.log(`takeover log lines:\n  ${takeovers.map((l) => l.slice(0, 300)).join('\n  ')}`);
    expect(takeovers.length).toBe(lost.length);
    expect(servedMs).toBeLessThan(10_000);
  }, 90_000);
});
