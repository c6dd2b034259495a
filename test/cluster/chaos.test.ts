import { afterAll, describe, expect, it } from 'vitest';
import { formatChaosReport, runChaos } from '../helpers/chaos-run.js';

/**
 * The short chaos run (`npm run chaos` is the long one): SWF and Step Functions load on three
 * nats-servers and three engines while one engine or nats-server after the other is SIGKILLed
 * (the kinds alternate) and restarted. Every acknowledged start must close exactly once, with a
 * gap-free history, no duplicate event or result, no timer or Wait early, and every Step Functions
 * execution must succeed with each state entered once.
 */
describe('chaos: SIGKILLed engines and nats-servers under load', () => {
  // The run stops its processes itself; this is for a run cut short by the test's timeout.
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => { await stop?.(); }, 30_000);

  it('every acknowledged start closes whole', async () => {
    const r = await runChaos({
      onTopology: (s) => { stop = s; },
      mode: 'cluster', durationMs: 40_000, killEveryMs: { min: 8000, mean: 11_000 }, minKills: 3,
      swfPerSecond: 2, sfnPerSecond: 1, drainTimeoutMs: 60_000, log: (l) => console.log(l),
    });
    console.log(formatChaosReport(r));
    expect(r.kills.engine).toBeGreaterThanOrEqual(1);
    expect(r.kills['nats-server']).toBeGreaterThanOrEqual(1);
    expect((r.kills.engine ?? 0) + (r.kills['nats-server'] ?? 0)).toBeGreaterThanOrEqual(3);
    expect(r.swf.acknowledged).toBeGreaterThan(40);
    expect(r.sfn.acknowledged).toBeGreaterThan(20);
    expect([r.swf.checked, r.sfn.checked]).toEqual([r.swf.acknowledged, r.sfn.acknowledged]);
    expect(r.violations).toEqual([]);
  }, 200_000);
});
