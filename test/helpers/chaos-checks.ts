import { ORDER_STEPS } from '../../src/demo/order-fulfilment.js';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { CLOSES_ACTIVITY, historyProblems, msOf } from './resilient-orders.js';

/**
 * The invariants a crash may not break, as lists of violations (empty = whole): the chaos run
 * (test/helpers/chaos-run.ts) collects them over every acknowledged start.
 */

const SWF_CLOSES = /^WorkflowExecution(Completed|Failed|TimedOut|Canceled|Terminated|ContinuedAsNew)$/;

/**
 * One order run (test/helpers/resilient-orders.ts): closed exactly once, as completed, by its last
 * event; gap-free with no duplicate event (historyProblems); every step's result recorded once; no
 * timer fired before TimerStarted + startToFireTimeout; a timer run has fired its timer.
 */
export function swfRunViolations(events: WireEvent[], opts: { timer: boolean }): string[] {
  const v = historyProblems(events);
  const closes = events.filter((e) => SWF_CLOSES.test(e.eventType));
  if (closes.length !== 1) v.push(`${closes.length} close events`);
  if (events.at(-1)?.eventType !== 'WorkflowExecutionCompleted') v.push(`ends with ${events.at(-1)?.eventType ?? 'nothing'}, not WorkflowExecutionCompleted`);
  const byId = new Map(events.map((e) => [e.eventId, e]));
  const results = new Map<string, number>();
  for (const e of events) {
    if (e.eventType !== 'ActivityTaskCompleted') continue;
    const name = attributesOf(byId.get(attributesOf(e).scheduledEventId) ?? e).activityType?.name as string | undefined;
    results.set(String(name), (results.get(String(name)) ?? 0) + 1);
  }
  for (const step of ORDER_STEPS) if (results.get(step) !== 1) v.push(`${step} result recorded ${results.get(step) ?? 0} times`);
  for (const fired of events.filter((e) => e.eventType === 'TimerFired')) {
    const started = byId.get(attributesOf(fired).startedEventId);
    if (!started) continue; // historyProblems named the dangling reference
    const due = msOf(started) + Number(attributesOf(started).startToFireTimeout) * 1000;
    if (msOf(fired) < due) v.push(`timer ${attributesOf(started).timerId} fired ${due - msOf(fired)} ms early (event ${fired.eventId})`);
  }
  if (opts.timer && !events.some((e) => e.eventType === 'TimerFired')) v.push('its timer never fired');
  const open = events.filter((e) => e.eventType === 'ActivityTaskScheduled').filter((s) => !events.some((c) => CLOSES_ACTIVITY.has(c.eventType) && attributesOf(c).scheduledEventId === s.eventId));
  if (open.length > 0) v.push(`activities still open: ${open.map((e) => e.eventId).join(',')}`);
  return v;
}

/** A Step Functions history event as GetExecutionHistory returns it. */
export interface SfnEvent {
  id: number;
  previousEventId: number;
  type: string;
  /** epoch seconds with ms */
  timestamp: number;
  stateEnteredEventDetails?: { name: string };
  [details: string]: unknown;
}

/** What the chaos state machine looks like to its checker: its states in order, and its limits. */
export interface SfnShape {
  /** Every state name, each entered exactly once on the way to success. */
  states: readonly string[];
  /** Task state name → attempts allowed (1 + MaxAttempts of its Retry). */
  attempts: Readonly<Record<string, number>>;
  /** Wait state name → its Seconds. */
  waits: Readonly<Record<string, number>>;
}

/**
 * How far a Wait's WaitStateExited may fall short of WaitStateEntered + Seconds: the deadline is
 * read when the state starts, the entered event is stamped when its transition is written, a moment
 * later (the same bound as test/cluster/sfn-failover.test.ts).
 */
export const WAIT_STAMP_SLACK_MS = 1000;

/**
 * One Step Functions execution: SUCCEEDED with the expected output; ids 1..n (no gap, no
 * duplicate) with earlier previousEventIds and ordered timestamps; every state entered once (a
 * Retry repeats the activity inside the state, not the state); no Task state scheduled more
 * attempts than its Retry allows or succeeding twice; no Wait left early.
 */
export function sfnExecutionViolations(d: { status: string; output?: string; error?: string; cause?: string }, expectedOutput: unknown, events: SfnEvent[], shape: SfnShape): string[] {
  const v: string[] = [];
  if (d.status !== 'SUCCEEDED') v.push(`status ${d.status}${d.error ? ` (${d.error}: ${String(d.cause).slice(0, 200)})` : ''}`);
  else if (JSON.stringify(JSON.parse(d.output ?? 'null')) !== JSON.stringify(expectedOutput)) v.push(`output ${d.output}, expected ${JSON.stringify(expectedOutput)}`);
  events.forEach((e, i) => {
    if (e.id !== i + 1) v.push(`event #${i + 1} has id ${e.id}`);
    if (e.previousEventId >= e.id || e.previousEventId < 0) v.push(`event ${e.id} ${e.type}: previousEventId ${e.previousEventId}`);
    if (i > 0 && e.timestamp < events[i - 1]!.timestamp) v.push(`event ${e.id} is older than the one before it`);
  });
  const ends = events.filter((e) => /^Execution(Succeeded|Failed|TimedOut|Aborted)$/.test(e.type));
  if (ends.length !== 1 || events.at(-1) !== ends[0]) v.push(`${ends.length} execution ends, last event ${events.at(-1)?.type}`);
  const entered = new Map<string, SfnEvent[]>();
  let state: string | undefined;
  const perState = new Map<string, { scheduled: number; succeeded: number }>();
  for (const e of events) {
    if (e.type.endsWith('StateEntered')) {
      state = e.stateEnteredEventDetails?.name ?? '?';
      entered.set(state, [...(entered.get(state) ?? []), e]);
      perState.set(state, { scheduled: 0, succeeded: 0 });
    } else if (e.type.endsWith('StateExited')) {
      const wait = state !== undefined ? shape.waits[state] : undefined;
      if (wait !== undefined) {
        const short = entered.get(state!)!.at(-1)!.timestamp * 1000 + wait * 1000 - e.timestamp * 1000;
        if (short > WAIT_STAMP_SLACK_MS) v.push(`Wait ${state} left ${Math.round(short)} ms early`);
      }
      state = undefined;
    } else if (state !== undefined) {
      const c = perState.get(state)!;
      if (e.type === 'ActivityScheduled') c.scheduled++;
      if (e.type === 'ActivitySucceeded') c.succeeded++;
    }
  }
  for (const name of shape.states) if ((entered.get(name)?.length ?? 0) !== 1) v.push(`state ${name} entered ${entered.get(name)?.length ?? 0} times`);
  for (const name of entered.keys()) if (!shape.states.includes(name)) v.push(`unknown state ${name} entered`);
  for (const [name, allowed] of Object.entries(shape.attempts)) {
    const c = perState.get(name);
    if (!c) continue;
    if (c.scheduled > allowed) v.push(`${name}: ${c.scheduled} attempts, its Retry allows ${allowed}`);
    if (c.succeeded !== 1) v.push(`${name}: ${c.succeeded} ActivitySucceeded`);
  }
  return v;
}
