import { afterAll, describe, expect, it } from 'vitest';
import { DescribeDomainCommand, RegisterDomainCommand, SWFClient } from '@aws-sdk/client-swf';
import { CreateActivityCommand, SFNClient } from '@aws-sdk/client-sfn';
import { startNode } from '../../src/server.js';
import { freePort } from '../helpers/nats-cluster.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { uniqueDomain } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { capturedLogger } from '../helpers/captured-log.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const caught = (p: Promise<unknown>) => p.then(() => undefined, (e: { name: string; $fault?: string; $metadata?: { httpStatusCode?: number } }) =>
  ({ name: e.name, status: e.$metadata?.httpStatusCode }));

/**
 * While NATS is down, calls that need it answer ServiceUnavailable (HTTP 503, which AWS SDKs retry)
 * rather than InternalFailure, and the node logs one warning for them, not an error per call.
 */
describe('calls during a NATS outage', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const f of cleanup.reverse()) await f().catch(() => undefined); }, 30_000);

  it('answer ServiceUnavailable (503) through the AWS SDKs, log one warning, and succeed once NATS is back', async () => {
    const natsPort = await freePort();
    const first: NatsServerHandle = await startNatsServer({ args: ['-p', String(natsPort)] });
    let second: NatsServerHandle | undefined;
    cleanup.push(async () => { await second?.stop(); await first.stop(); });
    const httpPort = await freePort();
    const { logger, lines } = capturedLogger();
    const node = await startNode({ natsUrl: first.url, partitions: 2, logger, http: { port: httpPort, accessKeys: new Map() } });
    cleanup.push(() => node.stop());
    const endpoint = `http://127.0.0.1:${httpPort}`;
    const sdk = { endpoint, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: 'AKIDOUTAGE', secretAccessKey: 'outage' } };
    const swf = new SWFClient(sdk);
    const sfn = new SFNClient(sdk);
    cleanup.push(async () => { swf.destroy(); sfn.destroy(); });
    const domain = uniqueDomain('outage');
    await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));

    first.kill('SIGKILL');
    const answers = await Promise.all([
      caught(swf.send(new DescribeDomainCommand({ name: domain }))),
      caught(swf.send(new RegisterDomainCommand({ name: `${domain}-2`, workflowExecutionRetentionPeriodInDays: '1' }))),
      caught(sfn.send(new CreateActivityCommand({ name: 'outage-activity' }))),
    ]);
    expect(answers).toEqual(Array(3).fill({ name: 'ServiceUnavailable', status: 503 }));
    const during = lines();
    expect(during.filter((l) => (l.level as number) >= 50).map((l) => l.msg)).toEqual([]);
    const warnings = during.filter((l) => l.msg === 'NATS did not answer: requests are answered ServiceUnavailable (503)');
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toMatchObject({ level: 40, count: 1, reason: 'TimeoutError: timeout' });

    second = await startNatsServer({ args: ['-p', String(natsPort), '-sd', first.storeDir] });
    let info: string | undefined;
    await until(async () => {
      info = (await swf.send(new DescribeDomainCommand({ name: domain })).catch(() => undefined))?.domainInfo?.status;
      return info !== undefined;
    }, { timeoutMs: 30_000, intervalMs: 250, message: 'DescribeDomain answered after NATS came back' });
    expect(info).toBe('REGISTERED');
  }, 90_000);
});
