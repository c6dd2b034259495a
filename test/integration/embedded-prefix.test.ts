import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { confWithPrefix } from '../../src/nats/conf-prefix.js';
import { cleanedUpAfterAll, closed, processesWith, ROOT, serveOnEmbedded, swfCall as swf } from '../helpers/embedded-engine.js';

describe('the embedded nats-server for another AF_PREFIX', () => {
  const cleanup = cleanedUpAfterAll();
  const conf = readFileSync(`${ROOT}/nats.conf`, 'utf8');

  it("rewrites every subject and bucket of nats.conf's users, and nothing else", () => {
    const xy = confWithPrefix(conf, 'xy');
    const quoted = (text: string) => [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    expect(quoted(xy).filter((q) => /^(af\.|\$KV\.af_)/.test(q))).toEqual([]);
    expect(quoted(xy)).toEqual(expect.arrayContaining(['xy.hist.>', 'xy.api.>', 'xy.sfn.out.>', '$KV.xy_runs.>', '$KV.xy_cluster.>', '_AF_ENGINE_INBOX.>', '$JS.API.>']));
    expect(quoted(xy)).toHaveLength(quoted(conf).length);
    expect(confWithPrefix(conf, 'af')).toBe(conf);
  });

  // It stopped at its first write: Permissions Violation for Publish to "$KV.xy_cluster.task-token-key".
  it('serves an engine of that prefix', async () => {
    const { dir, natsPort, start } = await serveOnEmbedded(cleanup, 'af-prefix-', { AF_PREFIX: 'xy' });
    const { proc, out, exited } = await start();
    const { http } = JSON.parse(out.stdout.slice(out.stdout.indexOf('{"ready"')).split('\n')[0]!) as { http: string };
    expect((await swf(http, 'RegisterDomain', { name: 'prefixed', workflowExecutionRetentionPeriodInDays: '1' })).status).toBe(200);
    expect((await swf(http, 'DescribeDomain', { name: 'prefixed' })).body).toMatchObject({ domainInfo: { name: 'prefixed', status: 'REGISTERED' } });
    expect(out.stderr + out.stdout).not.toMatch(/Permissions Violation/);
    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited, out.stderr).toBe(0);
    expect(await closed(natsPort)).toBe(true);
    expect(await processesWith('nats-server', dir)).toEqual([]);
  }, 60_000);
});
