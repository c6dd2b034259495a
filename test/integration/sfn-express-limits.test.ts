import { CreateStateMachineCommand, ExecutionLimitExceeded, StartExecutionCommand, StartSyncExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../src/testing/test-environment.js';
import { freshName, SFN_ROLE, sfnClient } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

const CAP = 3;
let env: TestEnvironment;
let sfn: SFNClient;
beforeAll(async () => {
  env = await createTestEnvironment({ node: { sfnExpressMaxRunning: CAP } });
  sfn = sfnClient(Number(new URL(env.endpoint).port));
});
afterAll(async () => { sfn?.destroy(); await env?.close(); });

async function express(definition: object): Promise<string> {
  const r = await sfn.send(new CreateStateMachineCommand({ name: freshName('x'), roleArn: SFN_ROLE, definition: JSON.stringify(definition), type: 'EXPRESS' }));
  return r.stateMachineArn!;
}
const waitFor = (seconds: number) => ({ StartAt: 'W', States: { W: { Type: 'Wait', Seconds: seconds, End: true } } });

async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected the call to fail');
}

describe('EXPRESS limits (virtual time)', () => {
  it('past the per-node cap a start is refused with ExecutionLimitExceeded and nothing runs; a slot frees when one ends', async () => {
    env.skipTime(false);
    try {
      const arn = await express(waitFor(60));
      for (let i = 0; i < CAP; i++) await sfn.send(new StartExecutionCommand({ stateMachineArn: arn }));
      const express$ = env.node.ctx.sfnExpress!;
      expect(express$.runningCount).toBe(CAP);
      expect(await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn: arn })))).toBeInstanceOf(ExecutionLimitExceeded);
      expect((await rejection(sfn.send(new StartSyncExecutionCommand({ stateMachineArn: arn })))).name).toBe('ExecutionLimitExceeded');
      expect(express$.runningCount).toBe(CAP);
      await env.sleep('61s');
      await until(() => express$.runningCount === 0, { timeoutMs: 10_000 });
      await sfn.send(new StartExecutionCommand({ stateMachineArn: arn }));
      expect(express$.runningCount).toBe(1);
      await env.sleep('61s');
      await until(() => express$.runningCount === 0, { timeoutMs: 10_000 });
    } finally {
      env.skipTime(true);
    }
  });

  it('a Wait runs on the engine clock, and past 5 minutes an express execution ends TIMED_OUT', async () => {
    const short = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: await express(waitFor(120)), input: '{"k":1}' }));
    expect({ status: short.status, output: short.output }).toEqual({ status: 'SUCCEEDED', output: '{"k":1}' });
    expect(short.stopDate!.getTime() - short.startDate!.getTime()).toBeGreaterThanOrEqual(120_000);
    expect(short.billingDetails!.billedDurationInMilliseconds).toBeGreaterThanOrEqual(120_000);

    const t0 = Date.now();
    const long = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: await express(waitFor(3600)) }));
    expect({ status: long.status, error: long.error, output: long.output }).toEqual({ status: 'TIMED_OUT', error: 'States.Timeout', output: undefined });
    const ran = long.stopDate!.getTime() - long.startDate!.getTime();
    expect(ran >= 5 * 60_000 && ran < 5 * 60_000 + 1000, `ran ${ran} ms`).toBe(true);
    expect(Date.now() - t0).toBeLessThan(60_000); // virtual minutes, not real ones
    expect(env.node.ctx.sfnExpress!.runningCount).toBe(0);
  });
});
