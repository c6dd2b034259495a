import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startNode } from '../../src/node.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { freePort } from '../helpers/nats-cluster.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/**
 * A Step Functions execution whose Wait ends while JetStream is unreachable (found by the chaos
 * run: an execution stayed RUNNING after WaitStateEntered for good). Nobody asks for such an
 * execution again, so the engine itself must get its transition stored once the store is back.
 */
describe('Step Functions: a timer-driven transition during a NATS outage', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const f of cleanup.reverse()) await f().catch(() => undefined); });

  it('the Wait that ended in the outage is stored when NATS is back, and the execution succeeds', async () => {
    const port = await freePort();
    const first = await startNatsServer({ args: ['-p', String(port)] });
    const node = await startNode({ natsUrl: first.url, partitions: 2, logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }) });
    cleanup.push(() => node.stop());
    const client = await ActorFlowClient.connect({ servers: first.url });
    cleanup.push(() => client.close());
    const definition = { StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 1, Next: 'Done' }, Done: { Type: 'Pass', Result: 'done', End: true } } };
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('outage'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{}' });
    const types = async () => (await client.call<{ events: { type: string }[] }>('GetExecutionHistory', { executionArn })).events.map((e) => e.type);
    await until(async () => (await types()).includes('WaitStateEntered'), { timeoutMs: 5000, message: 'WaitStateEntered' });

    // The Wait ends 1 s later, with no server to store it; the server comes back (same port and store) 12 s later.
    first.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 12_000));
    const second = await startNatsServer({ args: ['-p', String(port), '-sd', first.storeDir] });
    cleanup.push(async () => { await second.stop(); await first.stop(); });

    let status = 'RUNNING';
    await until(async () => {
      status = (await client.call<{ status: string }>('DescribeExecution', { executionArn })).status;
      return status !== 'RUNNING';
    }, { timeoutMs: 20_000, intervalMs: 250, message: 'the execution ended' }).catch(() => undefined);
    expect({ status, types: await types() }).toEqual({
      status: 'SUCCEEDED',
      types: ['ExecutionStarted', 'WaitStateEntered', 'WaitStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
    });
  }, 60_000);
});
