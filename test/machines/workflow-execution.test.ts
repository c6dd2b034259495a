import { describe, expect, it } from 'vitest';
import { createActor, type SimulatedClock } from 'xstate';
import { foldHistory, initialExecutionState } from '../../machines/swf/execution-state.js';
import type { EventType, HistoryEvent } from '../../machines/swf/history-event.js';
import { createWorkflowExecutionMachine } from '../../machines/swf/workflow-execution.machine.js';
import { DAY, HOUR, SECOND, T0, YEAR_SECONDS, advance, callRecorder, clockAt, orderFulfilmentHistory } from './helpers.js';

function start(startToCloseDeadline: number, clock: SimulatedClock = clockAt()) {
  const machine = createWorkflowExecutionMachine(clock);
  const rec = callRecorder(clock);
  const actor = createActor(machine.provide({ actions: { reportTimeout: rec.fn } }), {
    input: { startToCloseDeadline },
    clock,
  });
  actor.start();
  return { actor, rec, clock, state: () => actor.getSnapshot() };
}

const history = orderFulfilmentHistory(T0);
const openPart = history.slice(0, 18); // everything but WorkflowExecutionCompleted
const e = (type: EventType, id: number, at: number, attrs: Record<string, unknown> = {}): HistoryEvent => ({ type, id, at, attrs });

function expectTimesOutExactlyAt(t: ReturnType<typeof start>, deadline: number) {
  t.clock.set(deadline - 1);
  expect(t.state().value).toBe('open');
  expect(t.rec.times).toEqual([]);
  t.clock.increment(1);
  expect(t.state().value).toEqual({ closed: 'timedOut' });
  expect(t.rec.times).toEqual([deadline]);
}

describe('workflow execution machine', () => {
  it('starts open with the deadline from input and an empty fold', () => {
    const t = start(T0 + HOUR);
    expect(t.state().value).toBe('open');
    expect(t.state().context).toEqual({ startToCloseDeadline: T0 + HOUR, execution: initialExecutionState() });
  });

  it('folds every history event into context.execution', () => {
    const t = start(T0 + HOUR);
    for (const [i, ev] of openPart.entries()) {
      t.actor.send(ev);
      expect(t.state().context.execution.lastEventId).toBe(ev.id);
      expect(t.state().context.execution).toEqual(foldHistory(openPart.slice(0, i + 1)));
      expect(t.state().value).toBe('open');
    }
    const x = t.state().context.execution;
    expect(x.startedAt).toBe(T0);
    expect(x.previousStartedEventId).toBe(16);
    expect(x.latestExecutionContext).toBe('step=ship');
    expect(x.timers).toEqual({});
    expect(x.activities).toEqual({});
    expect(t.state().context.startToCloseDeadline).toBe(T0 + HOUR);
  });

  it('takes a history.batch in one step, folding it or taking the fold it is given', () => {
    const oneByOne = start(T0 + HOUR);
    for (const ev of history) oneByOne.actor.send(ev);
    const batched = start(T0 + HOUR);
    batched.actor.send({ type: 'history.batch', events: openPart.slice(0, 5) });
    expect(batched.state().context.execution).toEqual(foldHistory(openPart.slice(0, 5)));
    const rest = history.slice(5);
    batched.actor.send({ type: 'history.batch', events: rest, execution: foldHistory(rest, batched.state().context.execution) });
    expect(batched.state().context.execution).toEqual(oneByOne.state().context.execution);
    expect(batched.state().value).toEqual({ closed: 'completed' });
    expect(oneByOne.state().value).toEqual({ closed: 'completed' });
  });

  describe('close events', () => {
    it.each([
      ['WorkflowExecutionCompleted', 'completed', 'COMPLETED'],
      ['WorkflowExecutionFailed', 'failed', 'FAILED'],
      ['WorkflowExecutionCanceled', 'canceled', 'CANCELED'],
      ['WorkflowExecutionTerminated', 'terminated', 'TERMINATED'],
      ['WorkflowExecutionContinuedAsNew', 'continuedAsNew', 'CONTINUED_AS_NEW'],
      ['WorkflowExecutionTimedOut', 'timedOut', 'TIMED_OUT'],
    ] as const)('%s reaches closed.%s and disarms the START_TO_CLOSE timer', (type, kind, status) => {
      const t = start(T0 + HOUR);
      for (const ev of openPart) t.actor.send(ev);
      t.clock.set(T0 + 10 * SECOND);
      t.actor.send(e(type, 19, t.clock.now(), { decisionTaskCompletedEventId: 17, timeoutType: 'START_TO_CLOSE', childPolicy: 'TERMINATE' }));
      expect(t.state().value).toEqual({ closed: kind });
      expect(t.state().matches({ closed: kind })).toBe(true);
      expect(t.state().context.execution).toMatchObject({ closeStatus: status, closedAt: T0 + 10 * SECOND, lastEventId: 19, decision: null });
      advance(t.clock, 2 * HOUR, 10 * SECOND);
      expect(t.state().value).toEqual({ closed: kind });
      expect(t.rec.times).toEqual([]);
    });

    it('the order-fulfilment history ends in closed.completed', () => {
      const t = start(T0 + HOUR);
      for (const ev of history) t.actor.send(ev);
      expect(t.state().value).toEqual({ closed: 'completed' });
      expect(t.state().context.execution).toEqual(foldHistory(history));
    });

    it('a close event as the very first event still closes (no event needs to precede it)', () => {
      const t = start(T0 + HOUR);
      t.actor.send(e('WorkflowExecutionTerminated', 2, T0 + 5, { reason: 'operator' }));
      expect(t.state().value).toEqual({ closed: 'terminated' });
    });
  });

  describe('START_TO_CLOSE', () => {
    it('fires exactly at the deadline, not 1 ms before, and goes to closed.timedOut', () => {
      const t = start(T0 + HOUR);
      t.actor.send(history[0]);
      expectTimesOutExactlyAt(t, T0 + HOUR);
      // The runtime appends WorkflowExecutionTimedOut in reportTimeout; until then the fold is untouched
      // (the internal delayed event is not folded as a history event).
      expect(t.state().context.execution.closeStatus).toBeNull();
      expect(t.state().context.execution.lastEventId).toBe(1);
    });

    it('the WorkflowExecutionTimedOut appended after the timeout is folded; the state stays closed.timedOut', () => {
      const t = start(T0 + HOUR);
      t.actor.send(history[0]);
      advance(t.clock, HOUR, 10 * SECOND);
      expect(t.state().value).toEqual({ closed: 'timedOut' });
      t.actor.send(e('WorkflowExecutionTimedOut', 2, T0 + HOUR, { timeoutType: 'START_TO_CLOSE', childPolicy: 'TERMINATE' }));
      expect(t.state().value).toEqual({ closed: 'timedOut' });
      expect(t.state().context.execution).toMatchObject({ closeStatus: 'TIMED_OUT', closedAt: T0 + HOUR, lastEventId: 2 });
      expect(t.rec.times).toHaveLength(1);
    });

    it('history events arriving while open do not restart or extend the timer', () => {
      const t = start(T0 + 20 * SECOND);
      for (const ev of openPart) {
        t.clock.set(Math.max(t.clock.now(), ev.at));
        t.actor.send(ev);
      }
      expect(t.clock.now()).toBe(T0 + 9_200);
      expectTimesOutExactlyAt(t, T0 + 20 * SECOND);
      expect(t.state().context.execution.lastEventId).toBe(18);
    });

    it('does not fire when the execution completes 1 ms before the deadline', () => {
      const t = start(T0 + HOUR);
      for (const ev of openPart) t.actor.send(ev);
      t.clock.set(T0 + HOUR - 1);
      t.actor.send(e('WorkflowExecutionCompleted', 19, t.clock.now(), { result: 'late but in time' }));
      advance(t.clock, DAY, HOUR);
      expect(t.state().value).toEqual({ closed: 'completed' });
      expect(t.rec.times).toEqual([]);
    });

    it('a replayed WorkflowExecutionTimedOut reaches closed.timedOut without reporting', () => {
      const t = start(T0 + HOUR, clockAt(T0 + 2 * HOUR));
      t.actor.send(history[0]);
      t.actor.send(e('WorkflowExecutionTimedOut', 2, T0 + HOUR, { timeoutType: 'START_TO_CLOSE' }));
      expect(t.state().value).toEqual({ closed: 'timedOut' });
      advance(t.clock, HOUR, 10 * SECOND);
      expect(t.rec.times).toEqual([]);
      expect(t.state().context.execution.closeStatus).toBe('TIMED_OUT');
    });
  });

  describe('rebuild from history', () => {
    it('fires at the original deadline, not relative to the rebuild', () => {
      // Started at t0 with a 10 s execution timeout; rebuilt at t0+5 s.
      const t = start(T0 + 10 * SECOND, clockAt(T0 + 5 * SECOND));
      for (const ev of history.slice(0, 4)) t.actor.send(ev);
      expect(t.state().context.execution.previousStartedEventId).toBe(3);
      expectTimesOutExactlyAt(t, T0 + 10 * SECOND);
    });

    it('a deadline that already passed fires as soon as the clock advances (0–1 ms)', () => {
      const now = T0 + 2 * HOUR;
      const t = start(T0 + HOUR, clockAt(now));
      for (const ev of openPart) t.actor.send(ev);
      expect(t.state().value).toBe('open');
      expect(t.state().context.execution.lastEventId).toBe(18);
      t.clock.increment(1);
      expect(t.state().value).toEqual({ closed: 'timedOut' });
      expect(t.rec.times).toHaveLength(1);
      expect(t.rec.times[0]).toBeLessThanOrEqual(now + 1);
    });

    it('a closed history replayed after its deadline stays as it closed and never reports a timeout', () => {
      const t = start(T0 + HOUR, clockAt(T0 + 2 * HOUR));
      for (const ev of history) t.actor.send(ev);
      advance(t.clock, HOUR, 10 * SECOND);
      expect(t.state().value).toEqual({ closed: 'completed' });
      expect(t.rec.times).toEqual([]);
    });
  });

  describe('long timeouts', () => {
    it.each([
      ['30 days', 30 * DAY],
      ['one year', YEAR_SECONDS * SECOND],
    ] as const)('an execution START_TO_CLOSE of %s fires exactly at the deadline', (_n, ms) => {
      const t = start(T0 + ms);
      t.actor.send(history[0]);
      advance(t.clock, ms - DAY, DAY);
      expect(t.state().value).toBe('open');
      expectTimesOutExactlyAt(t, T0 + ms);
    });
  });
});
