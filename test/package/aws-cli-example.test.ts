import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { AWS, requireClient, run } from '../helpers/external-clients.js';

/** examples/swf-order-aws-cli.sh: the order workflow with the aws CLI as decider and worker. */
const SCRIPT = fileURLToPath(new URL('../../examples/swf-order-aws-cli.sh', import.meta.url));

let e: TestEngine;
beforeAll(async () => {
  e = await startTestEngine({ http: { host: '127.0.0.1', port: 0, accessKeys: { AKIDCLITEST: 'cli-test-secret' } } });
});
afterAll(async () => { await e?.stop(); });

describe('the aws CLI example', () => {
  it('runs the order workflow to COMPLETED', async () => {
    await requireClient('aws');
    expect(AWS).toBe('/usr/bin/aws');
    const r = await run('bash', [SCRIPT, e.node.http!.url, uniqueDomain('cli-order')], 230_000);
    expect(r.code, `swf-order-aws-cli.sh failed:\n${r.stderr}\n${r.stdout}`).toBe(0);
    const [status, result] = r.stdout.trim().split('\n').slice(-2);
    expect(status!.split('\t')).toEqual(['CLOSED', 'COMPLETED']);
    expect(JSON.parse(result!)).toEqual({ orderId: 'cli-1', VerifyOrder: 'ok', ChargeCreditCard: 'ok', ShipOrder: 'ok', RecordCompletion: 'ok' });
  }, 240_000);
});
