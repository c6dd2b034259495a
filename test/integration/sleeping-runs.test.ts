import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActorFlowClient, attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { compact, startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { expectOrderHistory } from '../helpers/order-history.js';
import { manualRuns, UNKNOWN, type ActivityTimeouts, type Run } from '../helpers/manual-runs.js';

/**
 * Runs that go to sleep as soon as they are idle (sleepAfterMs: 0 — the sweeper runs every 50 ms):
 * their actors and history leave memory and only the next deadline stays in the wake-up queue.
 * Every scenario checks that the run really slept at the moment that matters, and waits for
 * deadlines without touching the run (a read would wake it and fire its due timers itself).
 *
 * The tests run one after another: they check the owner's global live/sleeping counts.
 */

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine({ sleepAfterMs: 0 }); });
afterAll(async () => { await e?.stop(); });

const { WORKFLOW, start, pollDecision, pollActivity, scheduleActivity, history } = manualRuns(() => e.client, 'sleepy');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const owner = () => e.node.owner;
const isLive = (runId: string) => owner().liveRuns().some((k) => k.runId === runId);

/** The run is out of memory and something sleeps (this file's open runs all sleep when idle). */
const isAsleep = (runId: string) => !isLive(runId) && owner().sleepingCount > 0;

/** Waits (without touching the run) until it has been put to sleep. */
async function untilAsleep(run: Run | string, timeoutMs = 2000): Promise<void> {
  const runId = typeof run === 'string' ? run : run.execution.runId;
  await until(() => isAsleep(runId), { timeoutMs, intervalMs: 5, message: `run ${runId} to sleep` });
}

/** The open runs of the engine, from KV af_runs (the source of truth for "open"). */
async function openRunCount(): Promise<number> {
  let n = 0;
  for await (const _ of await e.node.nats.runs.keys()) n++;
  return n;
}

/** No run is both live and sleeping, and nothing closed lingers: live + sleeping ≤ open runs. */
async function expectConsistentCounts(): Promise<void> {
  const live = owner().liveCount;
  const sleeping = owner().sleepingCount;
  const open = await openRunCount();
  expect(live + sleeping, `live ${live} + sleeping ${sleeping} vs ${open} open runs`).toBeLessThanOrEqual(open);
}


/** Starts a run, lets it sleep, has the decider schedule one activity (event 5), lets it sleep again. */
async function startWithActivity(label: string, t: ActivityTimeouts): Promise<Run> {
  const run = await start(label);
  await untilAsleep(run);
  await scheduleActivity(run, t);
  await untilAsleep(run);
  return run;
}

const byId = (events: WireEvent[], id: number): WireEvent => events[id - 1]!;
const ms = (event: WireEvent) => Math.round(event.eventTimestamp * 1000);

/**
 * Waits until `untilAt` (epoch ms) without touching the run, checking that it stays asleep until
 * shortly before `asleepBefore` (the earliest its deadline can be).
 */
async function waitUntouched(run: Run, asleepBefore: number, untilAt: number): Promise<void> {
  while (Date.now() < asleepBefore - 50) {
    expect(isLive(run.execution.runId), 'run woke before its deadline').toBe(false);
    await sleep(20);
  }
  const left = untilAt - Date.now();
  if (left > 0) await sleep(left);
}

/** The event came due at `due` (epoch ms): not before it, at most 1 s after. */
function expectFiredAt(event: WireEvent, due: number): void {
  expect(ms(event), `${event.eventType} at ${ms(event)}, due ${due}`).toBeGreaterThanOrEqual(due);
  expect(ms(event) - due, `${event.eventType} late by ${ms(event) - due} ms`).toBeLessThanOrEqual(1000);
}

function expectFollowUpDecision(events: WireEvent[], timedOut: WireEvent): void {
  const next = byId(events, timedOut.eventId + 1);
  expect(next?.eventType).toBe('DecisionTaskScheduled');
  expect(next.eventTimestamp).toBe(timedOut.eventTimestamp);
}

const SHOWN = ['timeoutType', 'scheduledEventId', 'startedEventId'];

describe('sleeping runs (sleepAfterMs: 0)', () => {
  it('the order workflow completes with its 29 events while the run sleeps between steps', async () => {
    const domain = uniqueDomain('order-sleep');
    await registerOrderTypes(e.client, domain);
    let runId: string | undefined;
    let sleptBeforeResponse = 0;
    // The participants' client answers a task only once the run has gone to sleep holding it.
    const client = Object.create(e.client) as ActorFlowClient;
    client.call = async <T = Record<string, any>>(action: string, input: object = {}): Promise<T> => {
      if (action.startsWith('Respond')) {
        await until(() => runId !== undefined && isAsleep(runId), { timeoutMs: 5000, intervalMs: 5, message: `order run asleep before ${action}` });
        sleptBeforeResponse++;
      }
      return e.client.call<T>(action, input);
    };
    let closed!: () => void;
    const done = new Promise<void>((r) => { closed = r; });
    const p = startOrderParticipants(client, domain, { pollTimeoutMs: 1000, onClosed: () => closed() });
    try {
      ({ runId } = await e.client.call('StartWorkflowExecution', { domain, workflowId: 'order-1', workflowType: ORDER_WORKFLOW, input: '{"orderId":1}' }));
      await done;
      const execution = { workflowId: 'order-1', runId: runId! };
      await until(async () => (await e.client.call('DescribeWorkflowExecution', { domain, execution })).executionInfo.executionStatus === 'CLOSED');
      // 5 decision tasks and 4 activity tasks, each answered to a sleeping run.
      expect(sleptBeforeResponse).toBe(9);
      const events = await e.client.history(domain, execution);
      expectOrderHistory(events);
      const d = await e.client.call('DescribeWorkflowExecution', { domain, execution });
      expect(d.executionInfo.closeStatus).toBe('COMPLETED');
      expect(d.openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 0, openTimers: 0 });
      // Closed: neither live nor sleeping.
      expect(isLive(runId!)).toBe(false);
      await expectConsistentCounts();
    } finally {
      await p.stop();
    }
  });

  it('a timer fires at its deadline although the run slept meanwhile', async () => {
    const run = await start('timer');
    await untilAsleep(run);
    const d = await pollDecision(run);
    const before = Date.now();
    await e.client.call('RespondDecisionTaskCompleted', {
      taskToken: d.taskToken,
      decisions: [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: '1' } }],
    });
    const after = Date.now();
    await untilAsleep(run);
    // Read nothing until well past the deadline: only the wake-up queue can fire the timer.
    await waitUntouched(run, before + 1000, after + 2000);
    const readAt = Date.now();
    const events = await history(run);
    expect(compact(events.slice(4), ['timerId', 'startedEventId'])).toBe(
      '5 TimerStarted timerId=t1 / 6 TimerFired timerId=t1,startedEventId=5 / 7 DecisionTaskScheduled',
    );
    const fired = byId(events, 6);
    expectFiredAt(fired, ms(byId(events, 5)) + 1000);
    expect(ms(fired)).toBeLessThan(readAt);
    expectFollowUpDecision(events, fired);
    await untilAsleep(run);
    await expectConsistentCounts();
  });

  it('a worker heartbeating every 400 ms outlives heartbeatTimeout 1 while the run sleeps between beats', async () => {
    const run = await startWithActivity('hb-alive', { scheduleToStartTimeout: '10', startToCloseTimeout: '10', scheduleToCloseTimeout: '20', heartbeatTimeout: '1' });
    const task = await pollActivity(run);
    const t0 = Date.now();
    let beats = 0;
    let asleepBeforeBeat = 0;
    while (Date.now() - t0 < 2500) {
      await sleep(400);
      if (isAsleep(run.execution.runId)) asleepBeforeBeat++;
      expect(await e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken, details: `beat ${++beats}` }))
        .toEqual({ cancelRequested: false });
    }
    expect(beats).toBeGreaterThanOrEqual(5);
    // The sweeper runs every 50 ms, so the run is asleep by the time of (nearly) every beat.
    expect(asleepBeforeBeat).toBeGreaterThanOrEqual(beats - 2);
    await untilAsleep(run);
    await e.client.call('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'ok' });
    const events = await history(run);
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskCompleted scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    expect(attributesOf(byId(events, 7)).result).toBe('ok');
    expect(events.some((x) => x.eventType === 'ActivityTaskTimedOut')).toBe(false);
  });

  it('a heartbeat timeout counts from the last heartbeat (kept while asleep) and reports its details', async () => {
    const run = await startWithActivity('hb-stop', { scheduleToStartTimeout: '10', startToCloseTimeout: '10', scheduleToCloseTimeout: '20', heartbeatTimeout: '1' });
    const task = await pollActivity(run);
    await untilAsleep(run);
    await sleep(500 - 50); // well into the first heartbeat window
    const before = Date.now();
    expect(await e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken, details: 'x' })).toEqual({ cancelRequested: false });
    const after = Date.now();
    await untilAsleep(run);
    await waitUntouched(run, before + 1000, after + 2000);
    const readAt = Date.now();
    const events = await history(run);
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskTimedOut timeoutType=HEARTBEAT,scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    const timedOut = byId(events, 7);
    expect(attributesOf(timedOut).details).toBe('x');
    expectFollowUpDecision(events, timedOut);
    const at = ms(timedOut);
    expect(at).toBeGreaterThanOrEqual(before + 1000);
    expect(at).toBeLessThanOrEqual(after + 1000 + 1000);
    // Not 1 s after the start: the heartbeat (given while the run slept) moved the deadline.
    expect(at).toBeGreaterThanOrEqual(ms(byId(events, 6)) + 1400);
    expect(at).toBeLessThan(readAt);
    await expect(e.client.call('RecordActivityTaskHeartbeat', { taskToken: task.taskToken })).rejects.toMatchObject(UNKNOWN);
  });

  it('activity START_TO_CLOSE fires at its original deadline while the run sleeps', async () => {
    const run = await startWithActivity('s2c', { scheduleToStartTimeout: '10', startToCloseTimeout: '1', scheduleToCloseTimeout: '20', heartbeatTimeout: 'NONE' });
    const before = Date.now();
    const task = await pollActivity(run);
    const after = Date.now();
    await untilAsleep(run);
    await waitUntouched(run, before + 1000, after + 2000);
    const readAt = Date.now();
    const events = await history(run);
    expect(compact(events.slice(4), SHOWN)).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
      + ' / 7 ActivityTaskTimedOut timeoutType=START_TO_CLOSE,scheduledEventId=5,startedEventId=6 / 8 DecisionTaskScheduled',
    );
    const timedOut = byId(events, 7);
    expectFiredAt(timedOut, ms(byId(events, 6)) + 1000);
    expect(ms(timedOut)).toBeLessThan(readAt);
    expectFollowUpDecision(events, timedOut);
    await expect(e.client.call('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'late' })).rejects.toMatchObject(UNKNOWN);
  });

  it('a poll wakes a sleeping run to start its decision task; a stale token on a sleeping run is refused', async () => {
    const run = await start('poll-wakes');
    await untilAsleep(run);
    expect(isLive(run.execution.runId)).toBe(false);
    const first = await pollDecision(run);
    expect(first.startedEventId).toBe(3);
    expect(first.events.map((x: WireEvent) => x.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    await untilAsleep(run);
    // The task survived the sleep: its token still works on the rebuilt run.
    await e.client.call('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 'later', startToFireTimeout: '30' } }],
    });
    await untilAsleep(run);
    // The same token again, now stale, on a sleeping run.
    await expect(e.client.call('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: {} }],
    })).rejects.toMatchObject(UNKNOWN);
    await untilAsleep(run);
    const events = await history(run);
    expect(compact(events)).toBe(
      '1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / 3 DecisionTaskStarted / 4 DecisionTaskCompleted / 5 TimerStarted',
    );
    const d = await e.client.call('DescribeWorkflowExecution', { domain: run.domain, execution: run.execution });
    expect(d.executionInfo.executionStatus).toBe('OPEN');
    expect(d.openCounts).toMatchObject({ openTimers: 1, openDecisionTasks: 0 });
  });

  it('Describe and GetWorkflowExecutionHistory answer for a sleeping run without duplicating it', async () => {
    const run = await start('reads');
    await until(() => owner().liveCount === 0, { timeoutMs: 2000, intervalMs: 5, message: 'every run asleep' });
    const sleepingBefore = owner().sleepingCount;
    const d = await e.client.call('DescribeWorkflowExecution', { domain: run.domain, execution: run.execution });
    expect(d.executionInfo).toMatchObject({ executionStatus: 'OPEN', execution: run.execution, workflowType: WORKFLOW });
    expect(d.openCounts).toMatchObject({ openDecisionTasks: 1, openActivityTasks: 0, openTimers: 0 });
    await expectConsistentCounts();
    expect(compact(await history(run))).toBe('1 WorkflowExecutionStarted / 2 DecisionTaskScheduled');
    await expectConsistentCounts();

    // Many reads at once, racing the sweeper: one live copy at most, never live and asleep at once.
    const open = await openRunCount();
    let worst = 0;
    const sampler = setInterval(() => { worst = Math.max(worst, owner().liveCount + owner().sleepingCount); }, 1);
    try {
      for (let round = 0; round < 5; round++) {
        const reads = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2
          ? e.client.call('DescribeWorkflowExecution', { domain: run.domain, execution: run.execution }).then((x) => x.executionInfo.executionStatus)
          : history(run).then((x) => x.length))));
        expect(reads).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? 'OPEN' : 2)));
        await expectConsistentCounts();
        await untilAsleep(run);
        await sleep(round * 20);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(worst, `live + sleeping peaked at ${worst} with ${open} open runs`).toBeLessThanOrEqual(open);
    expect(owner().sleepingCount).toBe(sleepingBefore);

    // The decision task queued before the reads is still handed out, and the run can close.
    const task = await pollDecision(run);
    expect(task.startedEventId).toBe(3);
    await untilAsleep(run);
    await e.client.call('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'read' } }],
    });
    expect(owner().sleepingCount).toBe(sleepingBefore - 1);
    expect(isLive(run.execution.runId)).toBe(false);
    const closed = await e.client.call('DescribeWorkflowExecution', { domain: run.domain, execution: run.execution });
    expect(closed.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });
    expect((await history(run)).map((x) => x.eventType).at(-1)).toBe('WorkflowExecutionCompleted');
    expect(isLive(run.execution.runId)).toBe(false);
    await expectConsistentCounts();
  });
});
