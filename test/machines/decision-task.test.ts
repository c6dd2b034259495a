import { describe, expect, it } from 'vitest';
import { createActor, type SimulatedClock } from 'xstate';
import { createDecisionTaskMachine, type DecisionTaskInput } from '../../machines/swf/decision-task.machine.js';
import type { TimeoutType } from '../../machines/swf/history-event.js';
import { DAY, SECOND, T0, YEAR_SECONDS, advance, captureWarnings, clockAt, ev, timeoutRecorder } from './helpers.js';

function start(input: Partial<DecisionTaskInput>, clock: SimulatedClock = clockAt()) {
  const machine = createDecisionTaskMachine(clock);
  const rec = timeoutRecorder(clock);
  const actor = createActor(machine.provide({ actions: { reportTimeout: rec.fn } }), {
    input: { scheduledAt: clock.now(), startToCloseMs: null, scheduleToStartMs: null, ...input },
    clock,
  });
  actor.start();
  return { actor, rec, clock, state: () => actor.getSnapshot() };
}

const started = (at: number) => ev('DecisionTaskStarted', at, { scheduledEventId: 2, identity: 'decider' });
const completed = (at: number) => ev('DecisionTaskCompleted', at, { scheduledEventId: 2, startedEventId: 3 });

function expectFiresExactlyAt(
  t: ReturnType<typeof start>, deadline: number, timeoutType: TimeoutType, before: 'scheduled' | 'started',
) {
  t.clock.set(deadline - 1);
  expect(t.state().value).toBe(before);
  expect(t.rec.calls).toEqual([]);
  t.clock.increment(1);
  expect(t.state().value).toBe('timedOut');
  expect(t.state().status).toBe('done');
  expect(t.state().context.timeoutType).toBe(timeoutType);
  expect(t.rec.calls).toEqual([{ timeoutType }]);
  expect(t.rec.times).toEqual([deadline]);
}

describe('decision task machine', () => {
  it('starts scheduled; the SCHEDULE_TO_START deadline comes from scheduledAt, START_TO_CLOSE waits for the start', () => {
    const t = start({ scheduledAt: T0 - 100, startToCloseMs: 30 * SECOND, scheduleToStartMs: 5 * SECOND });
    expect(t.state().value).toBe('scheduled');
    expect(t.state().context).toMatchObject({
      scheduledAt: T0 - 100,
      scheduleToStartDeadline: T0 - 100 + 5 * SECOND,
      startToCloseDeadline: null,
      timeoutType: undefined,
    });
    t.actor.send(started(T0 + 2 * SECOND));
    expect(t.state().value).toBe('started');
    expect(t.state().context.startToCloseDeadline).toBe(T0 + 32 * SECOND);
  });

  describe('START_TO_CLOSE', () => {
    it('fires exactly at startedAt + startToClose, not 1 ms before', () => {
      const t = start({ startToCloseMs: 30 * SECOND });
      advance(t.clock, 3 * SECOND);
      t.actor.send(started(t.clock.now()));
      expectFiresExactlyAt(t, T0 + 33 * SECOND, 'START_TO_CLOSE', 'started');
    });

    it('never fires while the task waits to be started', () => {
      const t = start({ startToCloseMs: 30 * SECOND });
      advance(t.clock, 365 * DAY, DAY);
      expect(t.state().value).toBe('scheduled');
      expect(t.rec.calls).toEqual([]);
    });

    it('does not fire when the decider completes in time (1 ms before the deadline)', () => {
      const t = start({ startToCloseMs: 30 * SECOND });
      t.actor.send(started(T0));
      t.clock.set(T0 + 30 * SECOND - 1);
      t.actor.send(completed(t.clock.now()));
      expect(t.state().value).toBe('completed');
      expect(t.state().status).toBe('done');
      advance(t.clock, 365 * DAY, DAY);
      expect(t.state().value).toBe('completed');
      expect(t.state().context.timeoutType).toBeUndefined();
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('SCHEDULE_TO_START', () => {
    it('fires exactly at scheduledAt + scheduleToStart, not 1 ms before', () => {
      const t = start({ startToCloseMs: 30 * SECOND, scheduleToStartMs: 5 * SECOND });
      expectFiresExactlyAt(t, T0 + 5 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
    });

    it('does not fire once the task is started in time; START_TO_CLOSE takes over', () => {
      const t = start({ startToCloseMs: 30 * SECOND, scheduleToStartMs: 5 * SECOND });
      t.clock.set(T0 + 5 * SECOND - 1);
      t.actor.send(started(t.clock.now()));
      t.clock.set(T0 + 10 * SECOND);
      expect(t.state().value).toBe('started');
      expect(t.rec.calls).toEqual([]);
      expectFiresExactlyAt(t, T0 + 5 * SECOND - 1 + 30 * SECOND, 'START_TO_CLOSE', 'started');
    });
  });

  describe('NONE durations', () => {
    it('never fire: 10 years scheduled, then 10 years started', () => {
      const t = start({});
      expect(t.state().context.scheduleToStartDeadline).toBeNull();
      advance(t.clock, 10 * 365 * DAY, DAY);
      expect(t.state().value).toBe('scheduled');
      t.actor.send(started(t.clock.now()));
      expect(t.state().context.startToCloseDeadline).toBeNull();
      advance(t.clock, 10 * 365 * DAY, DAY);
      expect(t.state().value).toBe('started');
      expect(t.rec.calls).toEqual([]);
      t.actor.send(completed(t.clock.now()));
      expect(t.state().value).toBe('completed');
    });

    it('scheduleToStart NONE (the default task list) never fires while scheduled', () => {
      const t = start({ startToCloseMs: 10 * SECOND, scheduleToStartMs: null });
      advance(t.clock, 10 * 365 * DAY, DAY);
      expect(t.state().value).toBe('scheduled');
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('replayed timeouts', () => {
    it.each([
      ['scheduled', 'SCHEDULE_TO_START'],
      ['started', 'START_TO_CLOSE'],
    ] as const)('DecisionTaskTimedOut in %s moves to timedOut(%s) without reporting', (phase, timeoutType) => {
      const t = start({ startToCloseMs: 10 * SECOND, scheduleToStartMs: 5 * SECOND });
      if (phase === 'started') t.actor.send(started(T0 + SECOND));
      t.actor.send(ev('DecisionTaskTimedOut', T0 + 5 * SECOND, { scheduledEventId: 2, startedEventId: 3, timeoutType }));
      expect(t.state().value).toBe('timedOut');
      expect(t.state().status).toBe('done');
      expect(t.state().context.timeoutType).toBe(timeoutType);
      advance(t.clock, 60 * SECOND);
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('close transitions', () => {
    it('DecisionTaskCompleted before the task started is ignored', () => {
      const t = start({ scheduleToStartMs: 5 * SECOND });
      t.actor.send(completed(T0));
      expect(t.state().value).toBe('scheduled');
      // The SCHEDULE_TO_START timer is still armed.
      expectFiresExactlyAt(t, T0 + 5 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
    });

    it('events after the final state change nothing', () => {
      const t = start({ startToCloseMs: 10 * SECOND });
      t.actor.send(started(T0));
      t.actor.send(completed(T0 + SECOND));
      captureWarnings(() => {
        t.actor.send(ev('DecisionTaskTimedOut', T0 + 2 * SECOND, { timeoutType: 'START_TO_CLOSE' }));
      });
      expect(t.state().value).toBe('completed');
      expect(t.state().context.timeoutType).toBeUndefined();
    });
  });

  describe('rebuild from history', () => {
    it('START_TO_CLOSE fires at the original deadline, not relative to the rebuild', () => {
      // Scheduled at t0, started at t0+1 s, rebuilt at t0+5 s, START_TO_CLOSE 10 s.
      const t = start({ scheduledAt: T0, startToCloseMs: 10 * SECOND }, clockAt(T0 + 5 * SECOND));
      t.actor.send(started(T0 + SECOND));
      expect(t.state().context.startToCloseDeadline).toBe(T0 + 11 * SECOND);
      expectFiresExactlyAt(t, T0 + 11 * SECOND, 'START_TO_CLOSE', 'started');
    });

    it('SCHEDULE_TO_START fires at the original deadline', () => {
      const t = start({ scheduledAt: T0, startToCloseMs: 10 * SECOND, scheduleToStartMs: 8 * SECOND }, clockAt(T0 + 5 * SECOND));
      expectFiresExactlyAt(t, T0 + 8 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
    });

    it('an already-passed START_TO_CLOSE deadline fires as soon as the clock advances', () => {
      const now = T0 + 60 * SECOND;
      const t = start({ scheduledAt: T0, startToCloseMs: 10 * SECOND }, clockAt(now));
      t.actor.send(started(T0 + SECOND));
      expect(t.state().value).toBe('started');
      t.clock.increment(1);
      expect(t.state().value).toBe('timedOut');
      expect(t.rec.calls).toEqual([{ timeoutType: 'START_TO_CLOSE' }]);
      expect(t.rec.times[0]).toBeLessThanOrEqual(now + 1);
    });

    it('an already-passed SCHEDULE_TO_START deadline fires as soon as the clock advances', () => {
      const t = start({ scheduledAt: T0, startToCloseMs: 10 * SECOND, scheduleToStartMs: 5 * SECOND }, clockAt(T0 + 60 * SECOND));
      expect(t.state().value).toBe('scheduled');
      t.clock.increment(1);
      expect(t.state().value).toBe('timedOut');
      expect(t.rec.calls).toEqual([{ timeoutType: 'SCHEDULE_TO_START' }]);
    });

    it('a replayed completed decision never times out', () => {
      const t = start({ scheduledAt: T0, startToCloseMs: 10 * SECOND, scheduleToStartMs: 5 * SECOND }, clockAt(T0 + 60 * SECOND));
      t.actor.send(started(T0 + SECOND));
      t.actor.send(completed(T0 + 2 * SECOND));
      advance(t.clock, 60 * SECOND);
      expect(t.state().value).toBe('completed');
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('long timeouts', () => {
    it.each([
      ['30 days', 30 * DAY],
      ['one year', YEAR_SECONDS * SECOND],
    ] as const)('START_TO_CLOSE of %s fires exactly at the deadline', (_n, ms) => {
      const t = start({ startToCloseMs: ms });
      t.actor.send(started(T0 + SECOND));
      advance(t.clock, ms - DAY, DAY);
      expect(t.state().value).toBe('started');
      expectFiresExactlyAt(t, T0 + SECOND + ms, 'START_TO_CLOSE', 'started');
    });

    it.each([
      ['30 days', 30 * DAY],
      ['one year', YEAR_SECONDS * SECOND],
    ] as const)('SCHEDULE_TO_START of %s fires exactly at the deadline', (_n, ms) => {
      const t = start({ startToCloseMs: 10 * SECOND, scheduleToStartMs: ms });
      expectFiresExactlyAt(t, T0 + ms, 'SCHEDULE_TO_START', 'scheduled');
    });
  });
});
