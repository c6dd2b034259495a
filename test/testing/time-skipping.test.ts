import { CreateActivityCommand, DescribeExecutionCommand, GetExecutionHistoryCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../src/testing/index.js';
import { ActivityWorker } from '../../src/sdk/activity-worker.js';
import { Decider } from '../../src/sdk/decider.js';
import { startSfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { attributesOf } from '../../src/sdk/client.js';
import { compact, uniqueDomain } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { at, createSfnMachine, DAY_MS, DECISIONS, decideLongWorkflow, eventOf, registerLongWorkflow, sfnAt, startLongWorkflow, WORKERS, BY_HAND } from './long-workflow.js';

/**
 * The test environment of `actorflow/testing`: a real nats-server and engine node whose clock jumps
 * to the next deadline whenever nothing runs. Workflows that wait for weeks finish in seconds, each
 * deadline stamped in history at its virtual time; with skipping off they wait, until env.sleep.
 */

let env: TestEnvironment;
let domain: string;
let decider: Decider;
let worker: ActivityWorker;
/** Real ms the Work activity takes: it stays in the worker's hand that long, and time must not jump meanwhile. */
const WORK_MS = 400;

beforeAll(async () => {
  env = await createTestEnvironment();
  domain = uniqueDomain('vt');
  await registerLongWorkflow(env.client, domain);
  decider = new Decider(env.client, { domain, taskList: DECISIONS, pollTimeoutMs: 1000 }, decideLongWorkflow).start();
  worker = new ActivityWorker(env.client, { domain, taskList: WORKERS, pollTimeoutMs: 1000 }, {
    Work: async () => { await new Promise((r) => setTimeout(r, WORK_MS)); return 'worked'; },
  }).start();
});
afterAll(async () => {
  await decider?.stop();
  await worker?.stop();
  await env?.close();
});

const status = async (workflowId: string, runId: string): Promise<string> =>
  (await env.client.call<{ executionInfo: { executionStatus: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId, runId } })).executionInfo.executionStatus;

describe('SWF on the virtual clock', () => {
  it('a workflow with a 30-day timer and a 7-day activity timeout closes in under 5 s of wall time', async () => {
    const wall0 = performance.now();
    const t0 = env.now();
    const runId = await startLongWorkflow(env.client, domain, 'month-and-week', 'full');
    await until(async () => (await status('month-and-week', runId)) === 'CLOSED', { timeoutMs: 5000, message: 'the run to close' });
    const wallMs = performance.now() - wall0;
    expect(wallMs).toBeLessThan(5000);

    const events = await env.client.history(domain, { workflowId: 'month-and-week', runId });
    const started = at(eventOf(events, 'TimerStarted'));
    const fired = at(eventOf(events, 'TimerFired'));
    const timedOut = eventOf(events, 'ActivityTaskTimedOut');
    // Deadlines are stamped at their virtual time (a few real ms after it at most).
    expect(started - t0).toBeLessThan(1000);
    expect(fired - started).toBeGreaterThanOrEqual(30 * DAY_MS);
    expect(fired - started).toBeLessThan(30 * DAY_MS + 1000);
    expect(at(timedOut) - fired).toBeGreaterThanOrEqual(7 * DAY_MS);
    expect(at(timedOut) - fired).toBeLessThan(7 * DAY_MS + 1000);
    // The worker's activity had a 7-day start-to-close timeout and took WORK_MS in its hand: no jump under it.
    const completed = eventOf(events, 'ActivityTaskCompleted');
    const workStarted = events.find((e) => e.eventType === 'ActivityTaskStarted')!;
    expect(at(completed) - at(workStarted)).toBeGreaterThanOrEqual(WORK_MS - 50);
    expect(at(completed) - at(workStarted)).toBeLessThan(60_000);
    expect(compact(events.filter((e) => !e.eventType.startsWith('Decision')), ['timeoutType'])).toBe([
      '1 WorkflowExecutionStarted', '5 TimerStarted', '6 TimerFired', '10 ActivityTaskScheduled',
      '11 ActivityTaskTimedOut timeoutType=SCHEDULE_TO_START', '15 ActivityTaskScheduled', '16 ActivityTaskStarted',
      '17 ActivityTaskCompleted', '21 WorkflowExecutionCompleted',
    ].join(' / '));
    expect(env.now() - t0).toBeGreaterThanOrEqual(37 * DAY_MS);
    expect(env.clock.idle, 'no task left in hand').toBe(true);
  });

  it('without skipping the timer waits (still open after 2 s); env.sleep("30d") fires it on demand', async () => {
    env.skipTime(false);
    try {
      const runId = await startLongWorkflow(env.client, domain, 'month-no-skip', 'timer-only');
      await until(async () => (await env.client.history(domain, { workflowId: 'month-no-skip', runId })).some((e) => e.eventType === 'TimerStarted'), { message: 'the timer to start' });
      const wall0 = Date.now();
      // Node may fire a timer a ms before Date.now() reaches it: wait a little past 2 s.
      await new Promise((r) => setTimeout(r, 2050));
      expect(Date.now() - wall0).toBeGreaterThanOrEqual(2000);
      expect(await status('month-no-skip', runId)).toBe('OPEN');
      let events = await env.client.history(domain, { workflowId: 'month-no-skip', runId });
      expect(events.some((e) => e.eventType === 'TimerFired')).toBe(false);

      const before = env.now();
      await env.sleep('30d');
      expect(env.now() - before).toBeGreaterThanOrEqual(30 * DAY_MS);
      await until(async () => (await status('month-no-skip', runId)) === 'CLOSED', { timeoutMs: 5000, message: 'the run to close after env.sleep' });
      events = await env.client.history(domain, { workflowId: 'month-no-skip', runId });
      const fired = at(eventOf(events, 'TimerFired'));
      expect(fired - at(eventOf(events, 'TimerStarted'))).toBeGreaterThanOrEqual(30 * DAY_MS);
      expect(fired - at(eventOf(events, 'TimerStarted'))).toBeLessThan(30 * DAY_MS + 3000);
    } finally {
      env.skipTime(true);
    }
  });
});

describe('a task left in a worker\'s hand', () => {
  it('holds time still; its 1-day heartbeat timeout fires when env.sleep passes it, stamped at the virtual deadline', async () => {
    const runId = await startLongWorkflow(env.client, domain, 'left-in-hand', 'heartbeat');
    // The test is the worker: it takes the task and never answers (a worker that died).
    const task = await env.client.call<{ taskToken?: string }>('PollForActivityTask', { domain, taskList: { name: BY_HAND }, afPollTimeoutMs: 5000 });
    expect(task.taskToken).toBeTruthy();
    await new Promise((r) => setTimeout(r, 1000));
    let events = await env.client.history(domain, { workflowId: 'left-in-hand', runId });
    expect(events.some((e) => e.eventType === 'ActivityTaskTimedOut'), 'time jumped under a task in hand').toBe(false);
    expect(env.clock.idle).toBe(false);

    await env.sleep('1d');
    await until(async () => (await status('left-in-hand', runId)) === 'CLOSED', { timeoutMs: 5000, message: 'the run to close after the heartbeat timeout' });
    events = await env.client.history(domain, { workflowId: 'left-in-hand', runId });
    const timedOut = eventOf(events, 'ActivityTaskTimedOut');
    expect(attributesOf(timedOut).timeoutType).toBe('HEARTBEAT');
    const late = at(timedOut) - at(eventOf(events, 'ActivityTaskStarted'));
    expect(late).toBeGreaterThanOrEqual(DAY_MS);
    expect(late).toBeLessThan(DAY_MS + 5000);
  });
});

describe('Step Functions on the virtual clock, through the AWS SDK at env.endpoint', () => {
  it('a machine with a 7-day Wait and an activity task (1 h timeout, 10 min heartbeat) succeeds in under 5 s of wall time', async () => {
    const sfn = sfnAt(env.endpoint);
    const { activityArn } = await sfn.send(new CreateActivityCommand({ name: 'vt-work' }));
    const sfnWorker = startSfnActivityWorker(env.client, {
      activityArn: activityArn!, pollTimeoutMs: 1000,
      handler: async (input) => { await new Promise((r) => setTimeout(r, WORK_MS)); return { got: input }; },
    });
    try {
      const definition = {
        StartAt: 'Week', States: {
          Week: { Type: 'Wait', Seconds: 7 * 86_400, Next: 'Work' },
          Work: { Type: 'Task', Resource: activityArn, TimeoutSeconds: 3600, HeartbeatSeconds: 600, End: true },
        },
      };
      const stateMachineArn = await createSfnMachine(sfn, 'vt-week', definition);
      const wall0 = performance.now();
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{"n":1}' }));
      let statusNow = 'RUNNING';
      await until(async () => {
        statusNow = (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status!;
        return statusNow !== 'RUNNING';
      }, { timeoutMs: 5000, message: 'the execution to end' });
      expect(performance.now() - wall0).toBeLessThan(5000);
      expect(statusNow).toBe('SUCCEEDED');

      const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
      const ms = (type: string) => events!.find((e) => e.type === type)!.timestamp!.getTime();
      // The Wait's deadline is read a few ms before WaitStateEntered is stamped (on a busy machine).
      expect(ms('WaitStateExited') - ms('WaitStateEntered')).toBeGreaterThanOrEqual(7 * DAY_MS - 1000);
      expect(ms('WaitStateExited') - ms('WaitStateEntered')).toBeLessThan(7 * DAY_MS + 1000);
      // The task in the worker's hand had a 10-minute heartbeat and never heartbeat: no jump while it worked.
      expect(events!.map((e) => e.type)).not.toContain('ActivityTimedOut');
      expect(ms('ActivitySucceeded') - ms('ActivityStarted')).toBeGreaterThanOrEqual(WORK_MS - 50);
      expect(ms('ActivitySucceeded') - ms('ActivityStarted')).toBeLessThan(60_000);
      await until(() => env.clock.idle, { timeoutMs: 2000, message: 'no task left in hand' });
    } finally {
      await sfnWorker.stop();
      sfn.destroy();
    }
  });
});
