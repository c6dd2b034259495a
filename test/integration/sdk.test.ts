import { afterAll, beforeAll, describe, it } from 'vitest';
import { Fault } from '../../src/protocol/faults.js';
import { ActivityCanceled, ActivityWorker, type ActivityHandler, type ActivityWorkerOptions } from '../../src/sdk/activity-worker.js';
import { ActorFlowClient, attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { Decider, type DecisionResult, type DecisionTask } from '../../src/sdk/decider.js';
import { compact, startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/**
 * The TypeScript SDK (ActorFlowClient, Decider, ActivityWorker) against a real nats-server and
 * engine. Every test has its own domain; workers and deciders poll with 1 s long polls so that
 * stop() is quick. The tests run concurrently (each waits mostly on its own timers).
 */

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

const WF = { name: 'sdk-wf', version: '1' };
const ACT = { name: 'sdk-act', version: '1' };
const DECISIONS = 'decisions';
const ACTIVITIES = 'activities';
const POLL_MS = 1000;

interface Run { domain: string; execution: { workflowId: string; runId: string } }

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A fresh domain with one workflow type and one activity type (generous defaults). */
async function freshDomain(label: string): Promise<string> {
  const domain = uniqueDomain(label);
  await e.client.ensureDomain(domain);
  await e.client.call('RegisterWorkflowType', {
    domain, ...WF, defaultTaskList: { name: DECISIONS }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '60', defaultTaskStartToCloseTimeout: '10',
  });
  await e.client.call('RegisterActivityType', {
    domain, ...ACT, defaultTaskList: { name: ACTIVITIES },
    defaultTaskScheduleToStartTimeout: '30', defaultTaskStartToCloseTimeout: '30',
    defaultTaskScheduleToCloseTimeout: '60', defaultTaskHeartbeatTimeout: 'NONE',
  });
  return domain;
}

async function start(label: string): Promise<Run> {
  const domain = await freshDomain(label);
  const workflowId = `wf-${label}`;
  const { runId } = await e.client.call('StartWorkflowExecution', { domain, workflowId, workflowType: WF });
  return { domain, execution: { workflowId, runId } };
}

const schedule = (activityId: string, extra: Record<string, unknown> = {}) => ({
  decisionType: 'ScheduleActivityTask',
  scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId, input: activityId, ...extra },
});
const complete = (result = 'done') => ({ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result } });

/** A decider driven by hand: takes the next decision task of the run's domain and answers it. */
async function decideByHand(run: Run, decisions: object[]): Promise<Record<string, any>> {
  const t = await e.client.call('PollForDecisionTask', { domain: run.domain, taskList: { name: DECISIONS }, identity: 'hand', afPollTimeoutMs: POLL_MS });
  if (!t.taskToken) throw new Error('no decision task');
  await e.client.call('RespondDecisionTaskCompleted', { taskToken: t.taskToken, decisions });
  return t;
}

const history = (run: Run) => e.client.history(run.domain, run.execution);
const ofType = (events: WireEvent[], type: string) => events.filter((x) => x.eventType === type);

/** Waits until the history holds `count` events of `type`; returns the whole history. */
async function waitFor(run: Run, type: string, count = 1, timeoutMs = 8000): Promise<WireEvent[]> {
  let events: WireEvent[] = [];
  await until(async () => {
    events = await history(run);
    return ofType(events, type).length >= count;
  }, { timeoutMs, intervalMs: 50, message: `${count}× ${type} in ${run.execution.workflowId}` });
  return events;
}

/** An ActivityWorker on the run's domain that records every error the pool reports. */
function worker(run: Run, handler: ActivityHandler, opts: Partial<ActivityWorkerOptions> = {}, client = e.client) {
  const errors: unknown[] = [];
  const w = new ActivityWorker(client, {
    domain: run.domain, taskList: ACTIVITIES, identity: 'sdk-worker', pollTimeoutMs: POLL_MS, onError: (x) => errors.push(x), ...opts,
  }, { [ACT.name]: handler });
  return { w: w.start(), errors };
}

describe.concurrent('TypeScript SDK over NATS', () => {
  it('ActivityWorker runs up to `concurrency` handlers at once', async ({ expect }) => {
    const run = await start('conc');
    let running = 0;
    let maxRunning = 0;
    const seen: string[] = [];
    const { w, errors } = worker(run, async (task) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      seen.push(task.activityId);
      await sleep(300);
      running--;
      return `done ${task.input}`;
    }, { concurrency: 4 });
    try {
      const t0 = Date.now();
      await decideByHand(run, Array.from({ length: 8 }, (_, i) => schedule(`a${i + 1}`)));
      const events = await waitFor(run, 'ActivityTaskCompleted', 8);
      const elapsed = Date.now() - t0;
      expect(maxRunning).toBe(4);
      expect(running).toBe(0);
      expect(seen.sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8']);
      // Two waves of four 300 ms handlers: not one wave, not eight sequential runs.
      expect(elapsed).toBeGreaterThanOrEqual(600);
      expect(elapsed).toBeLessThan(2400);
      expect(ofType(events, 'ActivityTaskStarted')).toHaveLength(8);
      expect(ofType(events, 'ActivityTaskCompleted').map((x) => attributesOf(x).result).sort())
        .toEqual(Array.from({ length: 8 }, (_, i) => `done a${i + 1}`));
      expect(errors).toEqual([]);
    } finally {
      await w.stop();
    }
  });

  it('automatic heartbeats keep a long activity alive past its heartbeat timeout', async ({ expect }) => {
    const run = await start('hb');
    // The worker gets its own connection, whose calls are counted (the tests run concurrently).
    const client = await ActorFlowClient.connect({ servers: e.url });
    let heartbeats = 0;
    const call = client.call.bind(client);
    client.call = (async (action: string, input?: object) => {
      if (action === 'RecordActivityTaskHeartbeat') heartbeats++;
      return call(action, input);
    }) as typeof client.call;
    const { w, errors } = worker(run, async (_task, ctx) => {
      await sleep(2500);
      expect(ctx.cancelRequested).toBe(false);
      return 'survived';
    }, { heartbeatIntervalMs: 300 }, client);
    try {
      await decideByHand(run, [schedule('long', { heartbeatTimeout: '1', startToCloseTimeout: '10', scheduleToCloseTimeout: '20' })]);
      const events = await waitFor(run, 'ActivityTaskCompleted', 1, 8000);
      expect(compact(events.slice(4), ['scheduledEventId', 'startedEventId', 'result'])).toBe(
        '5 ActivityTaskScheduled / 6 ActivityTaskStarted scheduledEventId=5'
        + ' / 7 ActivityTaskCompleted scheduledEventId=5,startedEventId=6,result=survived / 8 DecisionTaskScheduled',
      );
      expect(attributesOf(events[4]!).heartbeatTimeout).toBe('1');
      const started = events[5]!.eventTimestamp;
      expect(events[6]!.eventTimestamp - started).toBeGreaterThanOrEqual(2.4);
      expect(ofType(events, 'ActivityTaskTimedOut')).toEqual([]);
      expect(heartbeats).toBeGreaterThanOrEqual(6);
      expect(errors).toEqual([]);
    } finally {
      await w.stop();
      await client.close();
    }
  });

  it('a handler that throws answers RespondActivityTaskFailed with the message as reason', async ({ expect }) => {
    const run = await start('fail');
    const { w, errors } = worker(run, () => { throw new Error('card declined: insufficient funds'); });
    try {
      await decideByHand(run, [schedule('charge')]);
      const events = await waitFor(run, 'ActivityTaskFailed');
      const failed = ofType(events, 'ActivityTaskFailed')[0]!;
      expect(attributesOf(failed)).toMatchObject({ reason: 'card declined: insufficient funds', scheduledEventId: 5, startedEventId: 6 });
      expect(ofType(events, 'ActivityTaskCompleted')).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await w.stop();
    }
  });

  it('a handler that throws a Fault (e.g. from its own API call) also answers RespondActivityTaskFailed', async ({ expect }) => {
    const run = await start('fault');
    const { w, errors } = worker(run, async () => {
      await e.client.call('DescribeDomain', { name: uniqueDomain('missing') });
      return 'unreachable';
    });
    try {
      await decideByHand(run, [schedule('lookup', { startToCloseTimeout: '5' })]);
      const events = await waitFor(run, 'ActivityTaskFailed', 1, 4000);
      expect(attributesOf(ofType(events, 'ActivityTaskFailed')[0]!).reason).toMatch(/^Unknown domain: missing-/);
      expect(ofType(events, 'ActivityTaskTimedOut')).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await w.stop();
    }
  });

  it('a canceled activity sees cancelRequested on heartbeat and answers ActivityTaskCanceled', async ({ expect }) => {
    const run = await start('cancel');
    let beats = 0;
    let sawCancelFlag = false;
    const { w, errors } = worker(run, async (_task, ctx) => {
      for (;;) {
        beats++;
        if (await ctx.heartbeat(`beat ${beats}`)) {
          sawCancelFlag = ctx.cancelRequested;
          throw new ActivityCanceled('stopped');
        }
        await sleep(100);
      }
    });
    // The decider schedules the activity and a 1 s timer; when the timer fires (the activity has
    // been started by then) it asks for cancellation; when the activity is canceled it completes.
    const decider = new Decider(e.client, { domain: run.domain, taskList: DECISIONS, pollTimeoutMs: POLL_MS }, (task) => {
      const types = task.events.map((x) => x.eventType);
      if (types.includes('ActivityTaskCanceled')) return { decisions: [complete('canceled')] };
      if (types.includes('TimerFired') && !types.includes('ActivityTaskCancelRequested')) {
        expect(types).toContain('ActivityTaskStarted');
        return { decisions: [{ decisionType: 'RequestCancelActivityTask', requestCancelActivityTaskDecisionAttributes: { activityId: 'slow' } }] };
      }
      if (!types.includes('ActivityTaskScheduled')) {
        return { decisions: [schedule('slow'), { decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '1' } }] };
      }
      return { decisions: [] };
    }).start();
    try {
      const events = await waitFor(run, 'WorkflowExecutionCompleted');
      const requested = ofType(events, 'ActivityTaskCancelRequested')[0]!;
      const canceled = ofType(events, 'ActivityTaskCanceled')[0]!;
      expect(attributesOf(requested).activityId).toBe('slow');
      const scheduled = ofType(events, 'ActivityTaskScheduled')[0]!;
      const started = ofType(events, 'ActivityTaskStarted')[0]!;
      expect(attributesOf(canceled)).toMatchObject({
        details: 'stopped', scheduledEventId: scheduled.eventId, startedEventId: started.eventId, latestCancelRequestedEventId: requested.eventId,
      });
      expect(sawCancelFlag).toBe(true);
      expect(beats).toBeGreaterThan(1);
      expect(ofType(events, 'ActivityTaskFailed')).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await Promise.all([w.stop(), decider.stop()]);
    }
  });

  it('stop() lets a running handler finish and respond, then takes no new tasks', async ({ expect }) => {
    const run = await start('stop');
    let calls = 0;
    let finished = false;
    const { w, errors } = worker(run, async () => {
      calls++;
      await sleep(800);
      finished = true;
      return 'finished';
    }, { concurrency: 2 });
    await decideByHand(run, [schedule('first')]);
    await until(() => calls === 1, { message: 'the handler to start' });
    const t0 = Date.now();
    await w.stop();
    const took = Date.now() - t0;
    expect(finished).toBe(true);
    expect(took).toBeLessThan(POLL_MS + 800 + 500);
    // The response landed before stop() resolved: no waiting needed.
    const events = await history(run);
    expect(compact(events.slice(4), ['result'])).toBe(
      '5 ActivityTaskScheduled / 6 ActivityTaskStarted / 7 ActivityTaskCompleted result=finished / 8 DecisionTaskScheduled',
    );
    // A task scheduled after stop() stays in the queue.
    await decideByHand(run, [schedule('second')]);
    await sleep(1500);
    const after = await history(run);
    expect(ofType(after, 'ActivityTaskScheduled')).toHaveLength(2);
    expect(ofType(after, 'ActivityTaskStarted')).toHaveLength(1);
    expect((await e.client.call('CountPendingActivityTasks', { domain: run.domain, taskList: { name: ACTIVITIES } })).count).toBe(1);
    expect(calls).toBe(1);
    expect(errors).toEqual([]);
  });

  it('Decider sees the whole history, the right previousStartedEventId, and calls onResponded', async ({ expect }) => {
    const run = await start('decider');
    const tasks: DecisionTask[] = [];
    const responded: { task: DecisionTask; result: DecisionResult }[] = [];
    const errors: unknown[] = [];
    const decider = new Decider(e.client, {
      domain: run.domain, taskList: DECISIONS, identity: 'sdk-decider', pollTimeoutMs: POLL_MS,
      onError: (x) => errors.push(x), onResponded: (task, result) => responded.push({ task, result }),
    }, (task) => {
      tasks.push(task);
      const done = task.events.some((x) => x.eventType === 'ActivityTaskCompleted');
      return { decisions: [done ? complete('all done') : schedule('only')], executionContext: `ctx-${tasks.length}` };
    }).start();
    const { w, errors: workerErrors } = worker(run, (task) => `did ${task.input}`);
    try {
      const events = await waitFor(run, 'WorkflowExecutionCompleted');
      await until(() => responded.length === 2, { message: 'onResponded for the second task' });
      expect(tasks).toHaveLength(2);
      const [first, second] = tasks as [DecisionTask, DecisionTask];

      expect(first.events.map((x) => x.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
      expect(first).toMatchObject({ startedEventId: 3, previousStartedEventId: 0, workflowType: WF, workflowExecution: run.execution });

      expect(second.events[0]!.eventType).toBe('WorkflowExecutionStarted');
      expect(second.events.at(-1)!.eventType).toBe('DecisionTaskStarted');
      expect(second.events.at(-1)!.eventId).toBe(second.startedEventId);
      expect(second.events.map((x) => x.eventId)).toEqual(Array.from({ length: second.startedEventId }, (_, i) => i + 1));
      expect(second.previousStartedEventId).toBe(first.startedEventId);
      expect(second.events).toEqual(events.slice(0, second.startedEventId));
      expect(attributesOf(events.find((x) => x.eventType === 'DecisionTaskCompleted')!).executionContext).toBe('ctx-1');

      expect(responded.map((r) => r.task)).toEqual([first, second]);
      expect(responded[0]!.result.decisions).toEqual([schedule('only')]);
      expect(responded[1]!.result).toEqual({ decisions: [complete('all done')], executionContext: 'ctx-2' });
      expect(attributesOf(ofType(events, 'WorkflowExecutionCompleted')[0]!).result).toBe('all done');
      expect(errors).toEqual([]);
      expect(workerErrors).toEqual([]);
    } finally {
      await Promise.all([decider.stop(), w.stop()]);
    }
  });

  it('ActorFlowClient: unknown actions fault, history() follows pages, ensureDomain is idempotent', async ({ expect }) => {
    const err = await e.client.call('NoSuchAction', {}).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(Fault);
    expect(err).toMatchObject({ name: 'UnknownOperationException' });
    expect((err as Error).message).toContain('NoSuchAction');

    const run = await start('client');
    await decideByHand(run, [schedule('x')]);
    const t = await e.client.call('PollForActivityTask', { domain: run.domain, taskList: { name: ACTIVITIES }, afPollTimeoutMs: POLL_MS });
    await e.client.call('RespondActivityTaskCompleted', { taskToken: t.taskToken, result: 'r' });
    await decideByHand(run, [complete()]);
    const all = await e.client.history(run.domain, run.execution);
    const raw = await e.client.call('GetWorkflowExecutionHistory', { domain: run.domain, execution: run.execution });
    expect(raw.nextPageToken).toBeUndefined();
    expect(all).toEqual(raw.events);
    expect(all.at(-1)!.eventType).toBe('WorkflowExecutionCompleted');
    expect(all.map((x) => x.eventId)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));

    const domain = uniqueDomain('ensure');
    await e.client.ensureDomain(domain);
    await e.client.ensureDomain(domain);
    await e.client.ensureDomain(run.domain);
    expect((await e.client.call('DescribeDomain', { name: domain })).domainInfo).toMatchObject({ name: domain, status: 'REGISTERED' });
    // Other faults still surface.
    await expect(e.client.ensureDomain(uniqueDomain('bad'), 'forever')).rejects.toMatchObject({ name: 'ValidationException' });
  });
});
