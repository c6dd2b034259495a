import { DescribeExecutionCommand, GetExecutionHistoryCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../src/testing/index.js';
import { Decider } from '../../src/sdk/decider.js';
import { uniqueDomain } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { at, createSfnMachine, DAY_MS, DECISIONS, decideLongWorkflow, eventOf, registerLongWorkflow, sfnAt, startLongWorkflow } from './long-workflow.js';

/**
 * Executions put to sleep as soon as they are idle (sleepAfterMs 0) keep only their next deadline,
 * in the wake-up heap on the engine clock: on the virtual clock they wake at their virtual deadline,
 * on demand (env.sleep) or by time-skipping.
 */

let env: TestEnvironment;
beforeAll(async () => { env = await createTestEnvironment({ node: { sleepAfterMs: 0 } }); });
afterAll(async () => { await env?.close(); });

describe('sleeping executions on the virtual clock', () => {
  it('an SWF run asleep on its 30-day timer wakes at the virtual deadline, by env.sleep and by skipping', async () => {
    const domain = uniqueDomain('zz');
    await registerLongWorkflow(env.client, domain);
    const decider = new Decider(env.client, { domain, taskList: DECISIONS, pollTimeoutMs: 1000 }, decideLongWorkflow).start();
    const status = async (workflowId: string, runId: string) =>
      (await env.client.call<{ executionInfo: { executionStatus: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId, runId } })).executionInfo.executionStatus;
    try {
      env.skipTime(false);
      const runId = await startLongWorkflow(env.client, domain, 'asleep', 'timer-only');
      // First the timer (the run also sleeps while its first decision task waits), then the sleep on it.
      await until(async () => (await env.client.history(domain, { workflowId: 'asleep', runId })).some((e) => e.eventType === 'TimerStarted'), { message: 'the timer to start' });
      await until(() => env.node.owner.sleepingCount >= 1 && env.node.owner.liveCount === 0, { timeoutMs: 5000, message: 'the run to sleep on its timer' });
      await env.sleep('30d');
      await until(async () => (await status('asleep', runId)) === 'CLOSED', { timeoutMs: 5000, message: 'the woken run to close' });
      const events = await env.client.history(domain, { workflowId: 'asleep', runId });
      const waited = at(eventOf(events, 'TimerFired')) - at(eventOf(events, 'TimerStarted'));
      expect(waited).toBeGreaterThanOrEqual(30 * DAY_MS);
      expect(waited).toBeLessThan(30 * DAY_MS + 3000);

      env.skipTime(true);
      const wall0 = performance.now();
      const skipped = await startLongWorkflow(env.client, domain, 'asleep-skipped', 'timer-only');
      await until(async () => (await status('asleep-skipped', skipped)) === 'CLOSED', { timeoutMs: 5000, message: 'the skipped run to close' });
      expect(performance.now() - wall0).toBeLessThan(5000);
      const more = await env.client.history(domain, { workflowId: 'asleep-skipped', runId: skipped });
      expect(at(eventOf(more, 'TimerFired')) - at(eventOf(more, 'TimerStarted'))).toBeGreaterThanOrEqual(30 * DAY_MS);
    } finally {
      env.skipTime(true);
      await decider.stop();
    }
  });

  it('a Step Functions execution asleep in a 7-day Wait wakes at the virtual deadline', async () => {
    const sfn = sfnAt(env.endpoint);
    try {
      env.skipTime(false);
      const stateMachineArn = await createSfnMachine(sfn, 'zz-week', { StartAt: 'Week', States: { Week: { Type: 'Wait', Seconds: 7 * 86_400, End: true } } });
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn }));
      await until(() => env.node.sfn.sleepingCount >= 1 && env.node.sfn.liveCount === 0, { timeoutMs: 5000, message: 'the execution to sleep in its Wait' });
      expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
      await env.sleep('7d');
      await until(async () => (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status === 'SUCCEEDED', { timeoutMs: 5000, message: 'the woken execution to succeed' });
      const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
      const ms = (type: string) => events!.find((e) => e.type === type)!.timestamp!.getTime();
      // The Wait's deadline is read a few ms before WaitStateEntered is stamped (on a busy machine).
      expect(ms('WaitStateExited') - ms('WaitStateEntered')).toBeGreaterThanOrEqual(7 * DAY_MS - 1000);
      expect(ms('WaitStateExited') - ms('WaitStateEntered')).toBeLessThan(7 * DAY_MS + 3000);
    } finally {
      env.skipTime(true);
      sfn.destroy();
    }
  });
});
