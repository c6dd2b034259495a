import { afterEach, describe, expect, it } from 'vitest';
import { ORDER_STEPS, ORDER_WORKFLOW, orderHandlers, registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import { ActivityWorker, type ActivityHandler } from '../../src/sdk/activity-worker.js';
import { ActorFlowClient, attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { Decider, type DecisionResult, type DecisionTask } from '../../src/sdk/decider.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { uniqueDomain } from '../helpers/engine.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import {
  ACTIVITY_TIMEOUTS, decideOrderWithRetries, find, historyProblems, missingAnswers, msOf, newTracking, onError, POLL_MS, RUN_TIMEOUTS, sleep,
  startOrders, trackingClient, VERSION, waitClosed, type Tracking,
} from '../helpers/resilient-orders.js';
import { until } from '../helpers/until.js';

/**
 * Engine crash and graceful restart, with the engine in its own process (src/serve.ts) and the
 * deciders and workers in this one. A SIGKILLed engine loses everything in memory: the next process
 * rebuilds every open run from JetStream, so runs go on, timers and timeouts that straddle the crash
 * fire at their original deadlines, and no history gets a gap or a duplicate event.
 */

const HANG = { name: 'Hang', version: VERSION };

// ---------------------------------------------------------------------------------------------
// Deciders

/** One activity whose worker never answers: it must time out (START_TO_CLOSE); the run then completes. */
function decideHang(task: DecisionTask): DecisionResult {
  const ev = task.events;
  const timedOut = ev.find((e) => e.eventType === 'ActivityTaskTimedOut');
  if (timedOut) {
    return { decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: `hang ${attributesOf(timedOut).timeoutType}` } }] };
  }
  if (ev.some((e) => e.eventType === 'ActivityTaskScheduled')) return { decisions: [] };
  return {
    decisions: [{
      decisionType: 'ScheduleActivityTask',
      scheduleActivityTaskDecisionAttributes: { activityType: HANG, activityId: 'hang-1', taskList: { name: 'hang-activities' }, ...ACTIVITY_TIMEOUTS },
    }],
  };
}

// ---------------------------------------------------------------------------------------------
// Client-side participants


function startParticipants(client: ActorFlowClient, domain: string, t: Tracking, opts: {
  withTimer?: (workflowId: string) => boolean;
  onHangStarted?: () => void;
}) {
  const c = trackingClient(client, t);
  const handlers = orderHandlers();
  const slow: Record<string, ActivityHandler> = Object.fromEntries(Object.entries(handlers).map(([name, h]) => [name, async (task) => {
    await sleep(50 + Math.random() * 200);
    return h(task);
  }]));
  let releaseHang!: () => void;
  const hangReleased = new Promise<void>((r) => { releaseHang = r; });
  const common = { domain, pollTimeoutMs: POLL_MS, onError: onError(t) };
  const parts = [
    new Decider(c, { ...common, taskList: 'order-decisions', identity: 'order-decider', concurrency: 8 }, decideOrderWithRetries(opts.withTimer ?? (() => false))).start(),
    new ActivityWorker(c, { ...common, taskList: 'order-activities', identity: 'order-worker', concurrency: 16 }, slow).start(),
    new Decider(c, { ...common, taskList: 'hang-decisions', identity: 'hang-decider' }, decideHang).start(),
    // Never answers while the test runs; afterwards its late answer meets UnknownResourceFault.
    new ActivityWorker(c, { ...common, taskList: 'hang-activities', identity: 'hang-worker' }, {
      Hang: async () => {
        opts.onHangStarted?.();
        await hangReleased;
        return 'too late';
      },
    }).start(),
  ];
  return {
    async stop() {
      releaseHang();
      await Promise.all(parts.map((p) => p.stop()));
    },
  };
}

async function registerTypes(client: ActorFlowClient, domain: string): Promise<void> {
  await registerOrderTypes(client, domain);
  await client.call('RegisterActivityType', { domain, ...HANG, defaultTaskList: { name: 'hang-activities' } });
}


// ---------------------------------------------------------------------------------------------

let nats: NatsServerHandle | undefined;
const engines: EngineProcess[] = [];
let client: ActorFlowClient | undefined;
let participants: { stop(): Promise<void> } | undefined;

afterEach(async () => {
  await participants?.stop().catch(() => undefined);
  participants = undefined;
  await client?.close().catch(() => undefined);
  client = undefined;
  await Promise.all(engines.splice(0).map((e) => e.stop()));
  await nats?.stop();
  nats = undefined;
});

describe('engine process crash and restart', () => {
  it('SIGKILL mid-flight: a new process finishes every run; straddling timers and timeouts fire on time; no gaps or duplicates', async () => {
    nats = await startNatsServer();
    const a = await spawnEngine(nats.url);
    engines.push(a);
    client = await ActorFlowClient.connect({ servers: nats.url });
    const domain = uniqueDomain('crash');
    await registerTypes(client, domain);

    const ids = Array.from({ length: 100 }, (_, i) => `order-${String(i).padStart(3, '0')}`);
    const timerIds = new Set(['order-072', 'order-078', 'order-084', 'order-090', 'order-096']);
    const t = newTracking();
    let hangStartedAt = 0;
    participants = startParticipants(client, domain, t, { withTimer: (id) => timerIds.has(id), onHangStarted: () => { hangStartedAt ||= Date.now(); } });

    // Wave 1 (no timers); wave 2 (with the timer workflows) once some of wave 1 finished.
    const runs = await startOrders(client, domain, ids.slice(0, 70));
    await until(() => t.closed.size >= 10, { timeoutMs: 20_000, message: '10 completed orders' });
    runs.push(...await startOrders(client, domain, ids.slice(70)));
    // The first timer starts; then the run whose activity never answers gets its task; then the crash.
    await until(() => t.timersStarted.size >= 1, { timeoutMs: 20_000, message: 'a 5 s timer started' });
    const { runId: hangRunId } = await client.call('StartWorkflowExecution', {
      domain, workflowId: 'hang', workflowType: ORDER_WORKFLOW, taskList: { name: 'hang-decisions' }, ...RUN_TIMEOUTS,
    });
    const hang = { workflowId: 'hang', runId: hangRunId };
    await until(() => hangStartedAt > 0, { timeoutMs: 10_000, message: 'the hanging activity started' });

    const killAt = Date.now();
    a.kill('SIGKILL');
    const exitA = await a.exited;
    const closedAtCrash = t.closed.size;
    console.log(`crash: SIGKILL ${killAt - hangStartedAt} ms after the hanging activity started; ${closedAtCrash}/100 orders completed, ${t.timersStarted.size} timers started`);
    expect(exitA.signal).toBe('SIGKILL');
    expect(closedAtCrash).toBeGreaterThanOrEqual(10);
    expect(closedAtCrash).toBeLessThan(90);

    await sleep(1000);
    const b = await spawnEngine(nats.url);
    engines.push(b);
    console.log(`recovery: engine B ready ${b.readyAt - b.spawnedAt} ms after spawn, ${b.readyAt - killAt} ms after the crash`);

    await waitClosed(client, domain, [...runs, hang], 40_000).finally(() => console.log(`client errors: ${JSON.stringify(Object.fromEntries(t.errors))}`));
    const allClosedAt = Date.now();
    console.log(`recovery: all runs closed ${allClosedAt - killAt} ms after the crash`);
    // Lost tasks time out after 5 s and are redone; nothing may wait for a dead node's JetStream
    // delivery to expire (ack_wait, 30 s).
    expect(allClosedAt - killAt).toBeLessThan(25_000);

    // The checker catches a duplicate (sanity check of the check).
    const sample = await client.history(domain, runs[0]!);
    const again = { ...sample.find((e) => e.eventType === 'ActivityTaskStarted')!, eventId: sample.length + 1 };
    expect(historyProblems([...sample, again])).toContainEqual(expect.stringContaining('duplicate ActivityTaskStarted'));

    // Every order completed, every history is whole.
    const lateness: string[] = [];
    let straddlingTimers = 0;
    const stats = { activityTimeouts: 0, decisionTimeouts: 0, slowestStart: '', slowestMs: 0 };
    for (const run of runs) {
      const events = await client.history(domain, run);
      stats.activityTimeouts += events.filter((e) => e.eventType === 'ActivityTaskTimedOut').length;
      stats.decisionTimeouts += events.filter((e) => e.eventType === 'DecisionTaskTimedOut').length;
      for (const e of events) {
        if (e.eventType !== 'ActivityTaskStarted' && e.eventType !== 'DecisionTaskStarted') continue;
        const ms = msOf(e) - msOf(events[attributesOf(e).scheduledEventId - 1]!);
        if (ms > stats.slowestMs) Object.assign(stats, { slowestMs: ms, slowestStart: `${run.workflowId} ${e.eventType} ${ms} ms after scheduled` });
      }
      expect(historyProblems(events), run.workflowId).toEqual([]);
      expect(events.at(-1)!.eventType, run.workflowId).toBe('WorkflowExecutionCompleted');
      const steps = events.filter((e) => e.eventType === 'ActivityTaskCompleted')
        .map((e) => attributesOf(events[attributesOf(e).scheduledEventId - 1]!).activityType.name);
      expect(steps, run.workflowId).toEqual([...ORDER_STEPS]);
      const started = find(events, 'TimerStarted');
      expect(started !== undefined, run.workflowId).toBe(timerIds.has(run.workflowId));
      if (started) {
        const fired = find(events, 'TimerFired')!;
        const took = msOf(fired) - msOf(started);
        const straddles = msOf(started) < killAt && msOf(fired) > b.readyAt;
        if (straddles) straddlingTimers++;
        lateness.push(`timer ${run.workflowId}${straddles ? ' (straddles the crash)' : ''}: +${took - 5000} ms`);
        expect(took, `${run.workflowId} TimerFired − TimerStarted (ms)`).toBeGreaterThanOrEqual(5000);
        expect(took, `${run.workflowId} TimerFired − TimerStarted (ms)`).toBeLessThanOrEqual(6000);
      }
    }
    expect(straddlingTimers).toBeGreaterThanOrEqual(1);
    console.log(`lost to the crash (timed out and redone): ${stats.activityTimeouts} activity tasks, ${stats.decisionTimeouts} decision tasks; slowest task start after the crash: ${stats.slowestStart}`);

    // The hanging activity's START_TO_CLOSE timeout straddled the crash and fired on time.
    const hangEvents = await client.history(domain, hang);
    expect(historyProblems(hangEvents)).toEqual([]);
    const hangStarted = find(hangEvents, 'ActivityTaskStarted')!;
    const hangTimedOut = find(hangEvents, 'ActivityTaskTimedOut', (x) => x.scheduledEventId === attributesOf(hangStarted).scheduledEventId)!;
    expect(attributesOf(hangTimedOut)).toMatchObject({ timeoutType: 'START_TO_CLOSE', startedEventId: hangStarted.eventId });
    expect(msOf(hangStarted)).toBeLessThan(killAt);
    expect(msOf(hangTimedOut)).toBeGreaterThan(b.readyAt);
    const hangTook = msOf(hangTimedOut) - msOf(hangStarted);
    lateness.push(`activity START_TO_CLOSE (straddles the crash): +${hangTook - 5000} ms`);
    expect(hangTook, 'ActivityTaskTimedOut − ActivityTaskStarted (ms)').toBeGreaterThanOrEqual(5000);
    expect(hangTook, 'ActivityTaskTimedOut − ActivityTaskStarted (ms)').toBeLessThanOrEqual(6000);
    expect(hangEvents.at(-1)!.eventType).toBe('WorkflowExecutionCompleted');
    console.log(`lateness past the 5 s deadlines:\n  ${lateness.join('\n  ')}`);
  }, 60_000);

  it('SIGTERM mid-flight: the process ends its polls and exits 0 at once; every OK answer is in history; a new process finishes every run', async () => {
    nats = await startNatsServer();
    const c = await spawnEngine(nats.url);
    engines.push(c);
    client = await ActorFlowClient.connect({ servers: nats.url });
    const domain = uniqueDomain('graceful');
    await registerTypes(client, domain);
    const t = newTracking();
    participants = startParticipants(client, domain, t, {});

    const runs = await startOrders(client, domain, Array.from({ length: 60 }, (_, i) => `order-${String(i).padStart(3, '0')}`));
    await until(() => t.closed.size >= 5, { timeoutMs: 20_000, message: '5 completed orders' });
    // Besides the participants' 1 s polls, one poll that would be held for 60 s.
    const longPollSent = Date.now();
    const longPoll = client.call('PollForActivityTask', { domain, taskList: { name: 'nobody' }, identity: 'long', afPollTimeoutMs: 60_000 })
      .then((r) => ({ r, at: Date.now() }));
    await sleep(300);

    const termAt = Date.now();
    c.kill('SIGTERM');
    const exit = await c.exited;
    const stopMs = Date.now() - termAt;
    const answered = await longPoll;
    const okBefore = { activities: t.activityCompleted.length, decisions: t.decisionCompleted.length };
    console.log(`graceful stop: exit ${JSON.stringify(exit)} ${stopMs} ms after SIGTERM; the 60 s poll was answered after ${answered.at - longPollSent} ms; ${t.closed.size}/60 orders completed; OK answers so far: ${okBefore.activities} RespondActivityTaskCompleted, ${okBefore.decisions} RespondDecisionTaskCompleted`);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stopMs).toBeLessThan(3000);
    expect(answered.r.taskToken).toBeUndefined();
    expect(answered.at).toBeLessThanOrEqual(termAt + stopMs + 100);
    expect(t.closed.size).toBeLessThan(60);

    await sleep(500);
    const d = await spawnEngine(nats.url);
    engines.push(d);
    await waitClosed(client, domain, runs, 30_000);
    console.log(`graceful restart: engine ready ${d.readyAt - d.spawnedAt} ms after spawn; all runs closed ${Date.now() - termAt} ms after SIGTERM; client errors: ${JSON.stringify(Object.fromEntries(t.errors))}`);

    const histories = new Map<string, WireEvent[]>();
    for (const run of runs) {
      const events = await client.history(domain, run);
      histories.set(run.runId, events);
      expect(historyProblems(events), run.workflowId).toEqual([]);
      expect(events.at(-1)!.eventType, run.workflowId).toBe('WorkflowExecutionCompleted');
      expect(events.filter((e) => e.eventType === 'ActivityTaskCompleted').length, run.workflowId).toBe(ORDER_STEPS.length);
    }
    // Every answer the engine gave OK, before the stop and after the restart, is in the history.
    const missing = missingAnswers(t, histories);
    expect(missing).toEqual([]);
    expect(okBefore.activities).toBeGreaterThan(0);
  }, 60_000);
});
