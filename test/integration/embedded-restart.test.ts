import { describe, expect, it } from 'vitest';
import { cleanedUpAfterAll, closed, guardsOf, portOpen, processesWith, serveOnEmbedded, swfCall as swf } from '../helpers/embedded-engine.js';

describe('the embedded nats-server killed under a running engine (kill -9, the OOM killer)', () => {
  const cleanup = cleanedUpAfterAll();

  // It was left dead: the node reconnected forever to nothing and every call failed until a restart.
  it('is started again on its port and store, and the node serves what it stored before', async () => {
    const { dir, natsPort, start } = await serveOnEmbedded(cleanup, 'af-restart-');
    const { proc, out, exited } = await start();
    const { http } = JSON.parse(out.stdout.slice(out.stdout.indexOf('{"ready"')).split('\n')[0]!) as { http: string };
    expect((await swf(http, 'RegisterDomain', { name: 'before', workflowExecutionRetentionPeriodInDays: '1' })).status).toBe(200);

    const [first] = await processesWith('nats-server', dir);
    process.kill(first!, 'SIGKILL');
    const until = Date.now() + 30_000;
    let again: number[] = [];
    while (Date.now() < until) {
      again = (await processesWith('nats-server', dir)).filter((p) => p !== first);
      if (again.length === 1 && await portOpen(natsPort)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(again).toHaveLength(1);
    expect(out.stderr).toContain('embedded nats-server exited unexpectedly (SIGKILL)');
    // The node reconnected on its own: what it stored before is there, and it takes new writes.
    let described = { status: 0, body: {} as any };
    while (Date.now() < until) {
      described = await swf(http, 'DescribeDomain', { name: 'before' }).catch(() => described);
      if (described.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(described.body).toMatchObject({ domainInfo: { name: 'before', status: 'REGISTERED' } });
    expect((await swf(http, 'RegisterDomain', { name: 'after', workflowExecutionRetentionPeriodInDays: '1' })).status).toBe(200);
    expect(out.stderr).toContain('embedded nats-server is running again');
    // The dead server's guard went with it; the new one has its own.
    expect(await guardsOf(first)).toEqual([]);
    expect(await guardsOf(again[0])).toHaveLength(1);

    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited, out.stderr).toBe(0);
    expect(await closed(natsPort)).toBe(true);
    expect(await processesWith('nats-server', dir)).toEqual([]);
  }, 120_000);
});
