import { SimulatedClock } from 'xstate';
import type { EventType, HistoryEvent, TimeoutType } from '../../machines/swf/history-event.js';

/** A fixed, non-zero epoch for the simulated clocks (2024-01-01T00:00:00Z). */
export const T0 = Date.UTC(2024, 0, 1);

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const YEAR_SECONDS = 31_536_000;
export const YEAR = YEAR_SECONDS * SECOND;

/** A SimulatedClock already set to `at` (defaults to T0). */
export function clockAt(at: number = T0): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(at);
  return clock;
}

/**
 * Advances `clock` by `ms` in steps of at most `step` ms. SimulatedClock.increment jumps straight to
 * the end time, so timers re-armed while flushing would otherwise start from the end time.
 */
export function advance(clock: SimulatedClock, ms: number, step: number = SECOND): void {
  let left = ms;
  while (left > 0) {
    const d = Math.min(step, left);
    clock.increment(d);
    left -= d;
  }
}

/** Advances `clock` to the absolute time `to` in steps of at most `step` ms. */
export function advanceTo(clock: SimulatedClock, to: number, step: number = SECOND): void {
  advance(clock, to - clock.now(), step);
}

/**
 * A stand-in for the runtime-provided reportTimeout: records every params object it is called with
 * and the clock time of each call.
 */
export function timeoutRecorder(clock: SimulatedClock) {
  const calls: Array<{ timeoutType: TimeoutType }> = [];
  const times: number[] = [];
  const fn = (_args: unknown, params: { timeoutType: TimeoutType }) => {
    calls.push(params);
    times.push(clock.now());
  };
  return { calls, times, fn };
}

/** Records the clock time of each call of a parameterless action (timer reportFired, workflow reportTimeout). */
export function callRecorder(clock: SimulatedClock) {
  const times: number[] = [];
  const fn = () => {
    times.push(clock.now());
  };
  return { times, fn };
}

let nextId = 1;

/** Builds one history event. */
export function ev<T extends EventType>(type: T, at: number, attrs: Record<string, unknown> = {}, id?: number): HistoryEvent<T> {
  return { type, id: id ?? nextId++, at, attrs };
}

/**
 * Runs `fn` with console.warn captured (xstate warns when an event is sent to an actor in a final
 * state) and returns the captured messages.
 */
export function captureWarnings(fn: () => void): string[] {
  const original = console.warn;
  const messages: string[] = [];
  console.warn = (...args: unknown[]) => {
    messages.push(args.map(String).join(' '));
  };
  try {
    fn();
  } finally {
    console.warn = original;
  }
  return messages;
}

/**
 * The order-fulfilment history: start, decide, charge the card, decide, ship (with a shipping-deadline
 * timer), decide, cancel the timer, complete. Event ids are 1..19; `t0` is the start time.
 */
export function orderFulfilmentHistory(t0: number): HistoryEvent[] {
  const e = (id: number, type: EventType, dt: number, attrs: Record<string, unknown> = {}): HistoryEvent =>
    ({ type, id, at: t0 + dt, attrs });
  return [
    e(1, 'WorkflowExecutionStarted', 0, {
      workflowType: { name: 'OrderFulfilment', version: '1' }, taskList: { name: 'orders' },
      input: '{"orderId":42}', executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE',
    }),
    e(2, 'DecisionTaskScheduled', 0, { taskList: { name: 'orders' }, startToCloseTimeout: '30' }),
    e(3, 'DecisionTaskStarted', 100, { scheduledEventId: 2, identity: 'decider-1' }),
    e(4, 'DecisionTaskCompleted', 200, { scheduledEventId: 2, startedEventId: 3, executionContext: 'step=charge' }),
    e(5, 'ActivityTaskScheduled', 200, {
      activityId: 'charge-card', activityType: { name: 'ChargeCard', version: '1' },
      taskList: { name: 'payments' }, decisionTaskCompletedEventId: 4,
    }),
    e(6, 'ActivityTaskStarted', 1_000, { scheduledEventId: 5, identity: 'worker-1' }),
    e(7, 'ActivityTaskCompleted', 3_000, { scheduledEventId: 5, startedEventId: 6, result: 'charged' }),
    e(8, 'DecisionTaskScheduled', 3_000, { taskList: { name: 'orders' }, startToCloseTimeout: '30' }),
    e(9, 'DecisionTaskStarted', 3_100, { scheduledEventId: 8, identity: 'decider-1' }),
    e(10, 'DecisionTaskCompleted', 3_200, { scheduledEventId: 8, startedEventId: 9, executionContext: 'step=ship' }),
    e(11, 'ActivityTaskScheduled', 3_200, {
      activityId: 'ship-order', activityType: { name: 'ShipOrder', version: '1' },
      taskList: { name: 'warehouse' }, decisionTaskCompletedEventId: 10,
    }),
    e(12, 'TimerStarted', 3_200, { timerId: 'ship-deadline', startToFireTimeout: '600', decisionTaskCompletedEventId: 10 }),
    e(13, 'ActivityTaskStarted', 4_000, { scheduledEventId: 11, identity: 'worker-2' }),
    e(14, 'ActivityTaskCompleted', 9_000, { scheduledEventId: 11, startedEventId: 13, result: 'shipped' }),
    e(15, 'DecisionTaskScheduled', 9_000, { taskList: { name: 'orders' }, startToCloseTimeout: '30' }),
    e(16, 'DecisionTaskStarted', 9_100, { scheduledEventId: 15, identity: 'decider-1' }),
    e(17, 'DecisionTaskCompleted', 9_200, { scheduledEventId: 15, startedEventId: 16 }),
    e(18, 'TimerCanceled', 9_200, { timerId: 'ship-deadline', startedEventId: 12, decisionTaskCompletedEventId: 17 }),
    e(19, 'WorkflowExecutionCompleted', 9_200, { decisionTaskCompletedEventId: 17, result: 'done' }),
  ];
}
