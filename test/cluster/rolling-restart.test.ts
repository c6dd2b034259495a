import { describe, expect, it } from 'vitest';
import { engineName, untilBalanced, useBalancedEngineCluster } from '../helpers/engine-cluster.js';
import { runOrdersThrough } from '../helpers/cluster-load.js';

/**
 * Three nats-servers (JetStream R3) and three clustered engine processes, restarted one after the
 * other (SIGTERM: the node hands its partitions over at once; then it starts again and takes its
 * share back) while 300 order workflows run: every workflow completes with a whole history.
 */
const cluster = useBalancedEngineCluster();

describe('rolling restart of the engine nodes under load', () => {
  it('every one of 300 workflows completes', async () => {
    const c = cluster();
    const steps: string[] = [];
    const { elapsedMs } = await runOrdersThrough(c, {
      count: 300, disruptAfter: 30, closeTimeoutMs: 60_000,
      async disrupt(t) {
        for (let i = 0; i < c.engines.length; i++) {
          const t0 = Date.now();
          c.engines[i]!.kill('SIGTERM');
          const exit = await c.engines[i]!.exited;
          expect(exit).toEqual({ code: 0, signal: null });
          const stoppedMs = Date.now() - t0;
          // The node logs how long each phase of its stop took (a slow stop names the phase that waited).
          const stopLine = c.engines[i]!.output().split('\n').find((l) => l.includes('"engine node stopped"'));
          const phases = stopLine ? JSON.stringify((JSON.parse(stopLine) as { phases: object }).phases) : '(no stop line)';
          const gaveUp = c.engines[i]!.output().split('\n').find((l) => l.includes('API drain gave up'));
          if (gaveUp) console.log(gaveUp);
          const e = await c.restart(i);
          await untilBalanced(c, 3);
          steps.push(`${engineName(i)}: stopped in ${stoppedMs} ms ${phases}, ready again ${e.readyAt - t0} ms after SIGTERM, balanced ${Date.now() - t0} ms after (${t.closed.size}/300 completed)`);
        }
      },
    });
    console.log(`rolling restart:\n  ${steps.join('\n  ')}\n300 workflows in ${elapsedMs} ms`);
    expect(steps).toHaveLength(3);
  }, 90_000);
});
