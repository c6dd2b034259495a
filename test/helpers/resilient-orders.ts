import { isFault } from '../../src/protocol/faults.js';
import type { TaskRef } from '../../src/engine/task-token.js';
import { decode } from '../../src/protocol/codec.js';
import { formatTimeline, ORDER_STEPS, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { ActorFlowClient, attributesOf, type WireEvent } from '../../src/sdk/client.js';
import type { DecisionResult, DecisionTask } from '../../src/sdk/decider.js';
import { until } from './until.js';

/**
 * The order workflow made to survive crashes, and the checks of what a crash may not break
 * (shared by test/integration/crash-recovery.test.ts and the cluster tests): a decider that
 * redoes lost activities, a client that notes every OK answer, and the history checker.
 */

export const POLL_MS = 1000;
export const VERSION = '1.0';

/** Short task timeouts, so tasks lost with the crashed engine time out (and are retried) within the test. */
export const RUN_TIMEOUTS = { executionStartToCloseTimeout: '300', taskStartToCloseTimeout: '5' };
export const ACTIVITY_TIMEOUTS = { scheduleToStartTimeout: '60', startToCloseTimeout: '5', scheduleToCloseTimeout: '120', heartbeatTimeout: 'NONE' };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** Event time in epoch ms (the wire has seconds with ms precision). */
export const msOf = (e: WireEvent) => Math.round(e.eventTimestamp * 1000);

export interface Run { workflowId: string; runId: string }

export const CLOSES_ACTIVITY = new Set(['ActivityTaskCompleted', 'ActivityTaskFailed', 'ActivityTaskTimedOut', 'ActivityTaskCanceled']);

/**
 * The order workflow, stateless over the history and tolerant of lost tasks: an activity that
 * timed out (its worker's answer died with the engine) is scheduled again; a timer workflow waits
 * for a 5 s timer between the first and the second step.
 */
export function decideOrderWithRetries(withTimer: (workflowId: string) => boolean, timerSeconds = 5) {
  return (task: DecisionTask): DecisionResult => {
    const ev = task.events;
    const closed = new Set(ev.filter((e) => CLOSES_ACTIVITY.has(e.eventType)).map((e) => attributesOf(e).scheduledEventId as number));
    const scheduled = ev.filter((e) => e.eventType === 'ActivityTaskScheduled');
    if (scheduled.some((e) => !closed.has(e.eventId))) return { decisions: [] }; // an activity is still running
    const completed = ev.filter((e) => e.eventType === 'ActivityTaskCompleted');
    const done = completed.length;
    if (done === ORDER_STEPS.length) {
      return { decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'order fulfilled' } }] };
    }
    if (done === 1 && withTimer(task.workflowExecution.workflowId)) {
      if (!ev.some((e) => e.eventType === 'TimerStarted')) {
        return { decisions: [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 'pause', startToFireTimeout: String(timerSeconds) } }] };
      }
      if (!ev.some((e) => e.eventType === 'TimerFired')) return { decisions: [] };
    }
    const last = completed.at(-1);
    const input = last ? attributesOf(last).result : attributesOf(ev[0]!).input;
    return {
      decisions: [{
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType: { name: ORDER_STEPS[done], version: VERSION }, activityId: `${ORDER_STEPS[done]}-${scheduled.length + 1}`,
          input, ...ACTIVITY_TIMEOUTS,
        },
      }],
    };
  };
}


export interface Tracking {
  /** Successful (OK-answered) Respond* calls, by the task they name. */
  activityCompleted: TaskRef[];
  decisionCompleted: TaskRef[];
  /** Runs whose CompleteWorkflowExecution decision the engine accepted. */
  closed: Set<string>;
  /** Timer workflows whose StartTimer decision the engine accepted. */
  timersStarted: Set<string>;
  errors: Map<string, number>;
}

/**
 * What a token names, read without the cluster's key (engines may run in other processes): the
 * token is a 16-byte MAC, then the msgpack fields (src/engine/task-token.ts). Only for noting answers.
 */
function idsOfToken(token: string, kind: 'd' | 'a'): TaskRef {
  const [, domain, workflowId, runId, , scheduledEventId, startedEventId] = decode<[number, string, string, string, string, number, number]>(Buffer.from(token, 'base64url').subarray(16));
  return { domain, workflowId, runId, kind, scheduledEventId, startedEventId };
}

/** A client whose every OK answer is noted (it shares the connection of `client`). */
export function trackingClient(client: ActorFlowClient, t: Tracking): ActorFlowClient {
  const w = Object.create(client) as ActorFlowClient;
  w.call = (async (action: string, input: Record<string, unknown> = {}) => {
    const r = await client.call(action, input);
    if (action === 'RespondActivityTaskCompleted') t.activityCompleted.push(idsOfToken(input.taskToken as string, 'a'));
    if (action === 'RespondDecisionTaskCompleted') {
      t.decisionCompleted.push(idsOfToken(input.taskToken as string, 'd'));
      const types = (input.decisions as { decisionType: string }[]).map((d) => d.decisionType);
      const { workflowId } = idsOfToken(input.taskToken as string, 'd');
      if (types.includes('CompleteWorkflowExecution')) t.closed.add(workflowId);
      if (types.includes('StartTimer')) t.timersStarted.add(workflowId);
    }
    return r;
  }) as ActorFlowClient['call'];
  return w;
}

export function newTracking(): Tracking {
  return { activityCompleted: [], decisionCompleted: [], closed: new Set(), timersStarted: new Set(), errors: new Map() };
}

/** An onError that counts errors by name (and the start of their message) in `t.errors`. */
export function onError(t: Pick<Tracking, 'errors'>) {
  return (e: unknown) => {
    const name = e instanceof Error ? `${e.name}: ${e.message.slice(0, 60)}` : String(e);
    t.errors.set(name, (t.errors.get(name) ?? 0) + 1);
  };
}

/** Starts one order workflow; resolves with the run once the engine acknowledged the start. */
export async function startOrder(client: ActorFlowClient, domain: string, workflowId: string): Promise<Run> {
  const { runId } = await client.call('StartWorkflowExecution', {
    domain, workflowId, workflowType: ORDER_WORKFLOW, input: JSON.stringify({ orderId: workflowId }), ...RUN_TIMEOUTS,
  });
  return { workflowId, runId };
}

export async function startOrders(client: ActorFlowClient, domain: string, ids: string[]): Promise<Run[]> {
  return Promise.all(ids.map((workflowId) => startOrder(client, domain, workflowId)));
}

/**
 * `read()`, tried again on a retryable fault (InternalFailure: e.g. a read meeting a stream that
 * just changed leader; ServiceUnavailable: NATS did not answer in time): up to 20 times, 500 ms apart.
 */
export async function retryingInternal<T>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await read();
    } catch (e) {
      if (!isFault(e) || !e.retryable || i >= 20) throw e;
      await sleep(500);
    }
  }
}

export async function waitClosed(client: ActorFlowClient, domain: string, runs: Run[], timeoutMs: number): Promise<void> {
  const open = new Set(runs);
  try {
    await until(async () => {
      await Promise.all([...open].map(async (run) => {
        const d = await client.call('DescribeWorkflowExecution', { domain, execution: run });
        if (d.executionInfo.executionStatus === 'CLOSED') open.delete(run);
      }));
      return open.size === 0;
    }, { timeoutMs, intervalMs: 250, message: 'all runs closed' });
  } catch (err) {
    const stuck = [...open].slice(0, 3);
    const timelines = await Promise.all(stuck.map(async (run) => `${run.workflowId}:\n${formatTimeline(await client.history(domain, run))}`));
    throw new Error(`${(err as Error).message}; ${open.size} still open, e.g.\n${timelines.join('\n')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// History checks

/** Every way a history can be broken by a crash: gaps, duplicate events, dangling references. */
export function historyProblems(events: WireEvent[]): string[] {
  const problems: string[] = [];
  events.forEach((e, i) => { if (e.eventId !== i + 1) problems.push(`event #${i + 1} has eventId ${e.eventId}`); });
  for (let i = 1; i < events.length; i++) {
    if (msOf(events[i]!) < msOf(events[i - 1]!)) problems.push(`event ${events[i]!.eventId} is older than the one before it`);
  }
  const byId = new Map(events.map((e) => [e.eventId, e]));
  const seen = new Set<string>();
  const unique = (key: string, e: WireEvent) => {
    if (seen.has(key)) problems.push(`duplicate ${key} (event ${e.eventId})`);
    seen.add(key);
  };
  const refersTo = (e: WireEvent, attr: string, type: string) => {
    const id = attributesOf(e)[attr] as number;
    const target = byId.get(id);
    if (!target || target.eventType !== type || id >= e.eventId) problems.push(`event ${e.eventId} ${e.eventType}: ${attr}=${id} is not an earlier ${type}`);
    return id;
  };
  let closes = 0;
  for (const e of events) {
    const a = attributesOf(e);
    switch (e.eventType) {
      case 'WorkflowExecutionStarted': unique('WorkflowExecutionStarted', e); break;
      case 'DecisionTaskStarted': unique(`DecisionTaskStarted/${refersTo(e, 'scheduledEventId', 'DecisionTaskScheduled')}`, e); break;
      case 'DecisionTaskCompleted':
      case 'DecisionTaskTimedOut':
        unique(`decision closed/${refersTo(e, 'scheduledEventId', 'DecisionTaskScheduled')}`, e);
        if (e.eventType === 'DecisionTaskCompleted' || a.startedEventId) refersTo(e, 'startedEventId', 'DecisionTaskStarted');
        break;
      case 'ActivityTaskScheduled': unique(`ActivityTaskScheduled/${a.activityId}`, e); break;
      case 'ActivityTaskStarted': unique(`ActivityTaskStarted/${refersTo(e, 'scheduledEventId', 'ActivityTaskScheduled')}`, e); break;
      case 'ActivityTaskCompleted':
      case 'ActivityTaskFailed':
      case 'ActivityTaskTimedOut':
      case 'ActivityTaskCanceled':
        unique(`activity closed/${refersTo(e, 'scheduledEventId', 'ActivityTaskScheduled')}`, e);
        if (e.eventType !== 'ActivityTaskTimedOut' || a.startedEventId) refersTo(e, 'startedEventId', 'ActivityTaskStarted');
        break;
      case 'TimerStarted': unique(`TimerStarted/${a.timerId}`, e); break;
      case 'TimerFired': unique(`TimerFired/${refersTo(e, 'startedEventId', 'TimerStarted')}`, e); break;
      default:
        if (/^WorkflowExecution(Completed|Failed|TimedOut|Canceled|Terminated|ContinuedAsNew)$/.test(e.eventType)) closes++;
    }
  }
  if (closes > 1) problems.push(`${closes} close events`);
  return problems;
}

export const find = (events: WireEvent[], type: string, pred: (a: Record<string, any>) => boolean = () => true) =>
  events.find((e) => e.eventType === type && pred(attributesOf(e)));

/**
 * Order deciders and workers for load tests (no hanging activity): `withTimer` runs get a timer of
 * `timerSeconds` between the first and the second step; activities take `workMs` (± half).
 */
export async function startOrderFleet(client: ActorFlowClient, domain: string, t: Tracking, opts: {
  withTimer?: (workflowId: string) => boolean; timerSeconds?: number; deciders?: number; workers?: number; workMs?: number;
} = {}): Promise<{ stop(): Promise<void> }> {
  const { Decider } = await import('../../src/sdk/decider.js');
  const { ActivityWorker } = await import('../../src/sdk/activity-worker.js');
  const { orderHandlers } = await import('../../src/demo/order-fulfilment.js');
  const c = trackingClient(client, t);
  const workMs = opts.workMs ?? 20;
  const handlers = Object.fromEntries(Object.entries(orderHandlers()).map(([name, h]) => [name, async (task: { input?: string }) => {
    await sleep(workMs / 2 + Math.random() * workMs);
    return h(task);
  }]));
  const common = { domain, pollTimeoutMs: POLL_MS, onError: onError(t) };
  const parts = [
    new Decider(c, { ...common, taskList: 'order-decisions', identity: 'order-decider', concurrency: opts.deciders ?? 8 },
      decideOrderWithRetries(opts.withTimer ?? (() => false), opts.timerSeconds ?? 5)).start(),
    new ActivityWorker(c, { ...common, taskList: 'order-activities', identity: 'order-worker', concurrency: opts.workers ?? 16 }, handlers).start(),
  ];
  return { stop: async () => { await Promise.all(parts.map((p) => p.stop())); } };
}

/** Every answer the engine acknowledged (OK) that is missing from the run's final history. */
export function missingAnswers(t: Tracking, histories: ReadonlyMap<string, WireEvent[]>): string[] {
  const missing: string[] = [];
  const check = (refs: TaskRef[], type: string) => {
    for (const ref of refs) {
      const events = histories.get(ref.runId) ?? [];
      if (!find(events, type, (a) => a.scheduledEventId === ref.scheduledEventId && a.startedEventId === ref.startedEventId)) {
        missing.push(`${ref.workflowId} ${type} scheduledEventId=${ref.scheduledEventId} startedEventId=${ref.startedEventId}`);
      }
    }
  };
  check(t.activityCompleted, 'ActivityTaskCompleted');
  check(t.decisionCompleted, 'DecisionTaskCompleted');
  return missing;
}
