import {
  DescribeExecutionCommand, GetActivityTaskCommand, RedriveExecutionCommand, SendTaskFailureCommand, SendTaskSuccessCommand,
  StartExecutionCommand, type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../src/testing/index.js';
import { fullHistory, machineWithActivity, rejection, sfnClient } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

// Virtual time that moves only when the test says so: each step lands at the time it names.
let env: TestEnvironment;
let sfn: SFNClient;
beforeAll(async () => {
  env = await createTestEnvironment({ skipTime: false });
  sfn = sfnClient(env.node.http!.port);
});
afterAll(async () => {
  sfn?.destroy();
  await env?.close();
});

const describeIt = (executionArn: string) => sfn.send(new DescribeExecutionCommand({ executionArn }));
async function statusIs(executionArn: string, status: string): Promise<void> {
  await until(async () => (await describeIt(executionArn)).status === status, { timeoutMs: 15_000, intervalMs: 50, message: `${executionArn} ${status}` });
}
async function take(activityArn: string): Promise<string> {
  const t = await sfn.send(new GetActivityTaskCommand({ activityArn }));
  expect(t.taskToken).toBeTruthy();
  return t.taskToken!;
}

describe('RedriveExecution on the engine clock', () => {
  it('redrives within 14 days of the stop, and refuses after with AWS\'s reason', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({ StartAt: 'W', States: { W: { Type: 'Task', Resource: a, End: true } } }));
    const start = async () => (await sfn.send(new StartExecutionCommand({ stateMachineArn }))).executionArn!;
    const [early, late] = [await start(), await start()];
    for (let i = 0; i < 2; i++) await sfn.send(new SendTaskFailureCommand({ taskToken: await take(activityArn), error: 'Boom' }));
    await statusIs(early, 'FAILED');
    await statusIs(late, 'FAILED');

    await env.sleep('13d');
    expect((await describeIt(late)).redriveStatus).toBe('REDRIVABLE');
    await sfn.send(new RedriveExecutionCommand({ executionArn: early }));
    await sfn.send(new SendTaskSuccessCommand({ taskToken: await take(activityArn), output: '1' }));
    await statusIs(early, 'SUCCEEDED');

    await env.sleep('1441m');
    const d = await describeIt(late);
    expect({ status: d.redriveStatus, reason: d.redriveStatusReason }).toEqual({ status: 'NOT_REDRIVABLE', reason: 'Execution redrivable period exceeded' });
    const err = await rejection(sfn.send(new RedriveExecutionCommand({ executionArn: late })));
    expect({ name: err.name, message: err.message }).toEqual({ name: 'ExecutionNotRedrivable', message: 'Execution redrivable period exceeded' });
    expect((await describeIt(late)).status).toBe('FAILED');
  }, 60_000);

  it('counts the execution\'s TimeoutSeconds afresh from the redrive, as AWS resets it', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      TimeoutSeconds: 60, StartAt: 'W', States: { W: { Type: 'Task', Resource: a, End: true } },
    }));
    const executionArn = (await sfn.send(new StartExecutionCommand({ stateMachineArn }))).executionArn!;
    await env.sleep('61s');
    await statusIs(executionArn, 'TIMED_OUT');
    await env.sleep('1h');

    const { redriveDate } = await sfn.send(new RedriveExecutionCommand({ executionArn }));
    // The engine clock's date (virtual time), not the wall clock's.
    expect(Math.abs(redriveDate!.getTime() - env.now())).toBeLessThan(5_000);
    await env.sleep('30s');
    expect((await describeIt(executionArn)).status).toBe('RUNNING');
    await env.sleep('31s');
    await statusIs(executionArn, 'TIMED_OUT');
    const events = await fullHistory(sfn, executionArn);
    const at = (type: string) => events.filter((e) => e.type === type).map((e) => e.timestamp!.getTime());
    const [, second] = at('ExecutionTimedOut');
    expect(second! - redriveDate!.getTime()).toBeGreaterThanOrEqual(60_000);
    expect(second! - redriveDate!.getTime()).toBeLessThan(62_000);
    expect(at('ExecutionRedriven')).toHaveLength(1);
    // Its task was scheduled twice, once per attempt.
    expect(events.filter((e) => e.type === 'ActivityScheduled').length).toBe(2);
  }, 60_000);
});
