import { describe, expect, it } from 'vitest';
import { createActor, type SimulatedClock } from 'xstate';
import { createActivityTaskMachine, type ActivityTaskInput } from '../../machines/swf/activity-task.machine.js';
import type { TimeoutType } from '../../machines/swf/history-event.js';
import { DAY, SECOND, T0, YEAR_SECONDS, advance, advanceTo, captureWarnings, clockAt, ev, timeoutRecorder } from './helpers.js';

const NONE: Omit<ActivityTaskInput, 'scheduledAt'> = {
  scheduleToStartMs: null,
  scheduleToCloseMs: null,
  startToCloseMs: null,
  heartbeatMs: null,
};

/** Creates and starts an activity task actor on `clock` (default: a fresh clock at T0, scheduled now). */
function start(input: Partial<ActivityTaskInput>, clock: SimulatedClock = clockAt()) {
  const machine = createActivityTaskMachine(clock);
  const rec = timeoutRecorder(clock);
  const actor = createActor(machine.provide({ actions: { reportTimeout: rec.fn } }), {
    input: { scheduledAt: clock.now(), ...NONE, ...input },
    clock,
  });
  actor.start();
  return { actor, rec, clock, state: () => actor.getSnapshot() };
}

const started = (at: number) => ev('ActivityTaskStarted', at, { scheduledEventId: 1, identity: 'worker-1' });
const heartbeat = (at: number, details?: string) => ({ type: 'Heartbeat' as const, at, details });

/** Asserts the timeout has not fired at deadline - 1 and fires exactly at the deadline. */
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

describe('activity task machine', () => {
  describe('initial state', () => {
    it('starts scheduled with deadlines computed from scheduledAt', () => {
      const t = start({ scheduledAt: T0 - 500, scheduleToStartMs: 5 * SECOND, scheduleToCloseMs: 60 * SECOND, startToCloseMs: 30 * SECOND, heartbeatMs: 10 * SECOND });
      expect(t.state().value).toBe('scheduled');
      expect(t.state().context).toMatchObject({
        scheduledAt: T0 - 500,
        scheduleToStartDeadline: T0 - 500 + 5 * SECOND,
        scheduleToCloseDeadline: T0 - 500 + 60 * SECOND,
        startToCloseDeadline: null,
        heartbeatDeadline: null,
        cancelRequested: false,
        heartbeatDetails: undefined,
        timeoutType: undefined,
      });
    });

    it('sets the start-relative deadlines from the ActivityTaskStarted event time', () => {
      const t = start({ startToCloseMs: 30 * SECOND, heartbeatMs: 10 * SECOND });
      advance(t.clock, 2 * SECOND);
      t.actor.send(started(T0 + 2 * SECOND));
      expect(t.state().value).toBe('started');
      expect(t.state().context.startToCloseDeadline).toBe(T0 + 32 * SECOND);
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 12 * SECOND);
    });
  });

  describe('SCHEDULE_TO_START', () => {
    it('fires exactly at scheduledAt + scheduleToStart, not 1 ms before', () => {
      const t = start({ scheduleToStartMs: 5 * SECOND });
      expectFiresExactlyAt(t, T0 + 5 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
    });

    it('fires before SCHEDULE_TO_CLOSE when it is the earlier deadline', () => {
      const t = start({ scheduleToStartMs: 10 * SECOND, scheduleToCloseMs: 30 * SECOND });
      expectFiresExactlyAt(t, T0 + 10 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
      advance(t.clock, 60 * SECOND);
      expect(t.rec.calls).toHaveLength(1);
    });

    it('does not fire when the task starts in time (even 1 ms before the deadline)', () => {
      const t = start({ scheduleToStartMs: 5 * SECOND });
      t.clock.set(T0 + 5 * SECOND - 1);
      t.actor.send(started(t.clock.now()));
      advance(t.clock, 10 * DAY, DAY);
      expect(t.state().value).toBe('started');
      expect(t.state().context.timeoutType).toBeUndefined();
      expect(t.rec.calls).toEqual([]);
    });

    it('does not fire when the task is canceled before it starts', () => {
      const t = start({ scheduleToStartMs: 5 * SECOND });
      advance(t.clock, SECOND);
      t.actor.send(ev('ActivityTaskCanceled', t.clock.now(), { scheduledEventId: 1 }));
      advance(t.clock, 60 * SECOND);
      expect(t.state().value).toBe('canceled');
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('SCHEDULE_TO_CLOSE', () => {
    it('fires in scheduled exactly at scheduledAt + scheduleToClose', () => {
      const t = start({ scheduleToCloseMs: 30 * SECOND });
      expectFiresExactlyAt(t, T0 + 30 * SECOND, 'SCHEDULE_TO_CLOSE', 'scheduled');
    });

    it('fires in scheduled when it is earlier than SCHEDULE_TO_START', () => {
      const t = start({ scheduleToStartMs: 40 * SECOND, scheduleToCloseMs: 30 * SECOND });
      expectFiresExactlyAt(t, T0 + 30 * SECOND, 'SCHEDULE_TO_CLOSE', 'scheduled');
    });

    it('fires in started at the original scheduling-relative deadline, not relative to the start', () => {
      const t = start({ scheduleToCloseMs: 30 * SECOND, startToCloseMs: 60 * SECOND });
      advance(t.clock, 10 * SECOND);
      t.actor.send(started(t.clock.now()));
      expectFiresExactlyAt(t, T0 + 30 * SECOND, 'SCHEDULE_TO_CLOSE', 'started');
    });

    it('is not extended by heartbeats', () => {
      const t = start({ scheduleToCloseMs: 30 * SECOND, heartbeatMs: 10 * SECOND });
      t.actor.send(started(T0));
      for (let i = 0; i < 3; i++) {
        advance(t.clock, 9 * SECOND);
        t.actor.send(heartbeat(t.clock.now()));
      }
      expect(t.clock.now()).toBe(T0 + 27 * SECOND);
      expectFiresExactlyAt(t, T0 + 30 * SECOND, 'SCHEDULE_TO_CLOSE', 'started');
    });

    it('does not fire when the task completes in time', () => {
      const t = start({ scheduleToCloseMs: 30 * SECOND });
      advance(t.clock, 10 * SECOND);
      t.actor.send(started(t.clock.now()));
      t.clock.set(T0 + 30 * SECOND - 1);
      t.actor.send(ev('ActivityTaskCompleted', t.clock.now(), { scheduledEventId: 1, startedEventId: 2 }));
      advance(t.clock, 365 * DAY, DAY);
      expect(t.state().value).toBe('completed');
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('START_TO_CLOSE', () => {
    it('fires exactly at startedAt + startToClose, not 1 ms before', () => {
      const t = start({ startToCloseMs: 10 * SECOND });
      advance(t.clock, 2 * SECOND);
      t.actor.send(started(t.clock.now()));
      expectFiresExactlyAt(t, T0 + 12 * SECOND, 'START_TO_CLOSE', 'started');
    });

    it('never fires while the task is only scheduled', () => {
      const t = start({ startToCloseMs: 10 * SECOND });
      advance(t.clock, 365 * DAY, DAY);
      expect(t.state().value).toBe('scheduled');
      expect(t.rec.calls).toEqual([]);
    });

    it('does not fire when the task completes in time', () => {
      const t = start({ startToCloseMs: 10 * SECOND });
      t.actor.send(started(T0));
      t.clock.set(T0 + 10 * SECOND - 1);
      t.actor.send(ev('ActivityTaskCompleted', t.clock.now(), { scheduledEventId: 1, startedEventId: 2, result: 'ok' }));
      advance(t.clock, 60 * SECOND);
      expect(t.state().value).toBe('completed');
      expect(t.state().context.timeoutType).toBeUndefined();
      expect(t.rec.calls).toEqual([]);
    });

    it('does not fire when the task fails in time', () => {
      const t = start({ startToCloseMs: 10 * SECOND });
      t.actor.send(started(T0));
      advance(t.clock, 5 * SECOND);
      t.actor.send(ev('ActivityTaskFailed', t.clock.now(), { scheduledEventId: 1, startedEventId: 2, reason: 'boom' }));
      advance(t.clock, 60 * SECOND);
      expect(t.state().value).toBe('failed');
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('HEARTBEAT', () => {
    it('fires heartbeatTimeout after the start when no heartbeat arrives', () => {
      const t = start({ heartbeatMs: 10 * SECOND, startToCloseMs: 60 * SECOND });
      advance(t.clock, SECOND);
      t.actor.send(started(t.clock.now()));
      expectFiresExactlyAt(t, T0 + 11 * SECOND, 'HEARTBEAT', 'started');
    });

    it('a heartbeat moves the deadline to heartbeat.at + heartbeatTimeout', () => {
      const t = start({ heartbeatMs: 10 * SECOND });
      t.actor.send(started(T0));
      advance(t.clock, 6 * SECOND);
      t.actor.send(heartbeat(t.clock.now(), 'halfway'));
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 16 * SECOND);
      t.clock.set(T0 + 10 * SECOND);
      expect(t.state().value).toBe('started');
      expectFiresExactlyAt(t, T0 + 16 * SECOND, 'HEARTBEAT', 'started');
      expect(t.state().context.heartbeatDetails).toBe('halfway');
    });

    it('a worker heartbeating every 9 s with a 10 s heartbeat timeout is never timed out (100 s)', () => {
      const t = start({ heartbeatMs: 10 * SECOND });
      t.actor.send(started(T0));
      let beats = 0;
      while (t.clock.now() + 9 * SECOND <= T0 + 100 * SECOND) {
        advance(t.clock, 9 * SECOND);
        expect(t.state().value).toBe('started');
        t.actor.send(heartbeat(t.clock.now(), `beat-${++beats}`));
      }
      advanceTo(t.clock, T0 + 100 * SECOND);
      expect(beats).toBe(11);
      expect(t.state().value).toBe('started');
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 99 * SECOND + 10 * SECOND);
      expect(t.state().context.heartbeatDetails).toBe('beat-11');
      expect(t.rec.calls).toEqual([]);
      // Once the heartbeats stop, the last one's deadline applies.
      expectFiresExactlyAt(t, T0 + 109 * SECOND, 'HEARTBEAT', 'started');
    });

    it('START_TO_CLOSE still fires at its own deadline and is not extended by heartbeats', () => {
      const t = start({ heartbeatMs: 10 * SECOND, startToCloseMs: 50 * SECOND });
      t.actor.send(started(T0));
      for (let i = 0; i < 5; i++) {
        advance(t.clock, 9 * SECOND);
        t.actor.send(heartbeat(t.clock.now()));
      }
      expect(t.clock.now()).toBe(T0 + 45 * SECOND);
      expect(t.state().context.startToCloseDeadline).toBe(T0 + 50 * SECOND);
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 55 * SECOND);
      expectFiresExactlyAt(t, T0 + 50 * SECOND, 'START_TO_CLOSE', 'started');
    });

    it('a heartbeat that arrives too late does not revive a timed-out task', () => {
      const t = start({ heartbeatMs: 10 * SECOND });
      t.actor.send(started(T0));
      advance(t.clock, 11 * SECOND);
      expect(t.state().value).toBe('timedOut');
      captureWarnings(() => t.actor.send(heartbeat(t.clock.now(), 'late')));
      expect(t.state().value).toBe('timedOut');
      expect(t.state().context.heartbeatDetails).toBeUndefined();
      expect(t.rec.calls).toEqual([{ timeoutType: 'HEARTBEAT' }]);
    });

    it('carries heartbeat details in context; a heartbeat without details keeps the previous ones', () => {
      const t = start({ heartbeatMs: 10 * SECOND });
      t.actor.send(started(T0));
      advance(t.clock, SECOND);
      t.actor.send(heartbeat(t.clock.now(), '10%'));
      expect(t.state().context.heartbeatDetails).toBe('10%');
      advance(t.clock, SECOND);
      t.actor.send(heartbeat(t.clock.now(), '20%'));
      expect(t.state().context.heartbeatDetails).toBe('20%');
      advance(t.clock, SECOND);
      t.actor.send(heartbeat(t.clock.now()));
      expect(t.state().context.heartbeatDetails).toBe('20%');
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 13 * SECOND);
    });

    it('the heartbeat details are still in context when the heartbeat timeout is reported', () => {
      const clock = clockAt();
      const seen: Array<string | undefined> = [];
      const actor = createActor(
        createActivityTaskMachine(clock).provide({
          actions: { reportTimeout: ({ context }) => { seen.push(context.heartbeatDetails); } },
        }),
        { input: { scheduledAt: T0, ...NONE, heartbeatMs: 10 * SECOND }, clock },
      ).start();
      actor.send(started(T0));
      advance(clock, 5 * SECOND);
      actor.send(heartbeat(clock.now(), 'checkpoint-7'));
      advance(clock, 10 * SECOND);
      expect(actor.getSnapshot().value).toBe('timedOut');
      expect(seen).toEqual(['checkpoint-7']);
    });

    it('heartbeats are ignored while the task is only scheduled', () => {
      const t = start({ heartbeatMs: 10 * SECOND });
      t.actor.send(heartbeat(T0, 'too early'));
      expect(t.state().value).toBe('scheduled');
      expect(t.state().context.heartbeatDeadline).toBeNull();
      expect(t.state().context.heartbeatDetails).toBeUndefined();
    });
  });

  describe('NONE durations', () => {
    it('never fire: 10 years scheduled, then 10 years started, with heartbeats arriving', () => {
      const t = start({});
      expect(t.state().context).toMatchObject({ scheduleToStartDeadline: null, scheduleToCloseDeadline: null });
      advance(t.clock, 10 * 365 * DAY, DAY);
      expect(t.state().value).toBe('scheduled');
      t.actor.send(started(t.clock.now()));
      expect(t.state().context).toMatchObject({ startToCloseDeadline: null, heartbeatDeadline: null });
      advance(t.clock, 5 * 365 * DAY, DAY);
      t.actor.send(heartbeat(t.clock.now(), 'still here'));
      expect(t.state().context.heartbeatDeadline).toBeNull();
      advance(t.clock, 5 * 365 * DAY, DAY);
      expect(t.state().value).toBe('started');
      expect(t.state().context.timeoutType).toBeUndefined();
      expect(t.rec.calls).toEqual([]);
      t.actor.send(ev('ActivityTaskCompleted', t.clock.now(), { scheduledEventId: 1, startedEventId: 2 }));
      expect(t.state().value).toBe('completed');
    });

    it.each([
      ['scheduleToStartMs', 'scheduled'],
      ['scheduleToCloseMs', 'scheduled'],
      ['startToCloseMs', 'started'],
      ['heartbeatMs', 'started'],
    ] as const)('%s = NONE never fires while the other timeouts are set far out (%s)', (key, phase) => {
      const far = 20 * 365 * DAY;
      const input: Partial<ActivityTaskInput> = {
        scheduleToStartMs: far, scheduleToCloseMs: far, startToCloseMs: far, heartbeatMs: far, [key]: null,
      };
      const t = start(input);
      if (phase === 'started') t.actor.send(started(T0));
      advance(t.clock, 10 * 365 * DAY, DAY);
      expect(t.state().value).toBe(phase);
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('cancel requested', () => {
    it('sets cancelRequested in scheduled without restarting or disturbing the timers', () => {
      const t = start({ scheduleToStartMs: 5 * SECOND });
      advance(t.clock, 2 * SECOND);
      t.actor.send(ev('ActivityTaskCancelRequested', t.clock.now(), { activityId: 'a1' }));
      expect(t.state().value).toBe('scheduled');
      expect(t.state().context.cancelRequested).toBe(true);
      expectFiresExactlyAt(t, T0 + 5 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
      expect(t.state().context.cancelRequested).toBe(true);
    });

    it('sets cancelRequested in started; the worker then reports ActivityTaskCanceled', () => {
      const t = start({ startToCloseMs: 10 * SECOND, heartbeatMs: 5 * SECOND });
      t.actor.send(started(T0));
      advance(t.clock, 2 * SECOND);
      t.actor.send(ev('ActivityTaskCancelRequested', t.clock.now(), { activityId: 'a1' }));
      expect(t.state().value).toBe('started');
      expect(t.state().context.cancelRequested).toBe(true);
      // Heartbeat deadline is unchanged by the cancel request.
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 5 * SECOND);
      advance(t.clock, SECOND);
      t.actor.send(ev('ActivityTaskCanceled', t.clock.now(), { scheduledEventId: 1, startedEventId: 2 }));
      expect(t.state().value).toBe('canceled');
      expect(t.state().status).toBe('done');
      advance(t.clock, 60 * SECOND);
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('replayed timeouts', () => {
    it.each(['SCHEDULE_TO_START', 'SCHEDULE_TO_CLOSE'] as const)(
      'ActivityTaskTimedOut(%s) in scheduled moves to timedOut without reporting',
      (timeoutType) => {
        const t = start({ scheduleToStartMs: 5 * SECOND, scheduleToCloseMs: 10 * SECOND });
        t.actor.send(ev('ActivityTaskTimedOut', T0 + 5 * SECOND, { scheduledEventId: 1, timeoutType }));
        expect(t.state().value).toBe('timedOut');
        expect(t.state().status).toBe('done');
        expect(t.state().context.timeoutType).toBe(timeoutType);
        advance(t.clock, 60 * SECOND);
        expect(t.rec.calls).toEqual([]);
      },
    );

    it.each(['START_TO_CLOSE', 'SCHEDULE_TO_CLOSE', 'HEARTBEAT'] as const)(
      'ActivityTaskTimedOut(%s) in started moves to timedOut without reporting',
      (timeoutType) => {
        const t = start({ scheduleToCloseMs: 30 * SECOND, startToCloseMs: 20 * SECOND, heartbeatMs: 10 * SECOND });
        t.actor.send(started(T0));
        t.actor.send(ev('ActivityTaskTimedOut', T0 + 10 * SECOND, { scheduledEventId: 1, startedEventId: 2, timeoutType, details: 'd' }));
        expect(t.state().value).toBe('timedOut');
        expect(t.state().context.timeoutType).toBe(timeoutType);
        advance(t.clock, 60 * SECOND);
        expect(t.rec.calls).toEqual([]);
      },
    );
  });

  describe('close transitions', () => {
    it('scheduled → canceled', () => {
      const t = start({ scheduleToCloseMs: 10 * SECOND });
      t.actor.send(ev('ActivityTaskCanceled', T0, { scheduledEventId: 1 }));
      expect(t.state().value).toBe('canceled');
      expect(t.state().status).toBe('done');
      advance(t.clock, 20 * SECOND);
      expect(t.rec.calls).toEqual([]);
    });

    it.each([
      ['ActivityTaskCompleted', 'completed'],
      ['ActivityTaskFailed', 'failed'],
      ['ActivityTaskCanceled', 'canceled'],
    ] as const)('started → %s reaches %s and disarms every timer', (type, final) => {
      const t = start({ scheduleToCloseMs: 30 * SECOND, startToCloseMs: 20 * SECOND, heartbeatMs: 10 * SECOND });
      t.actor.send(started(T0 + SECOND));
      advance(t.clock, 5 * SECOND);
      t.actor.send(ev(type, t.clock.now(), { scheduledEventId: 1, startedEventId: 2 }));
      expect(t.state().value).toBe(final);
      expect(t.state().status).toBe('done');
      expect(t.state().context.timeoutType).toBeUndefined();
      advance(t.clock, 365 * DAY, DAY);
      expect(t.state().value).toBe(final);
      expect(t.rec.calls).toEqual([]);
    });

    it.each(['ActivityTaskCompleted', 'ActivityTaskFailed'] as const)(
      '%s before the task started is ignored (a task must start before it can complete or fail)',
      (type) => {
        const t = start({});
        t.actor.send(ev(type, T0, { scheduledEventId: 1, startedEventId: 2 }));
        expect(t.state().value).toBe('scheduled');
        expect(t.state().status).toBe('active');
      },
    );

    it('events after a final state change nothing', () => {
      const t = start({ startToCloseMs: 10 * SECOND });
      t.actor.send(started(T0));
      t.actor.send(ev('ActivityTaskCompleted', T0 + SECOND, { scheduledEventId: 1, startedEventId: 2 }));
      captureWarnings(() => {
        t.actor.send(ev('ActivityTaskTimedOut', T0 + 2 * SECOND, { scheduledEventId: 1, timeoutType: 'START_TO_CLOSE' }));
        t.actor.send(ev('ActivityTaskCancelRequested', T0 + 2 * SECOND, { activityId: 'a1' }));
      });
      expect(t.state().value).toBe('completed');
      expect(t.state().context.timeoutType).toBeUndefined();
      expect(t.state().context.cancelRequested).toBe(false);
    });
  });

  describe('rebuild from history', () => {
    /** A clock at `now` and an actor whose input says it was scheduled at `scheduledAt`. */
    function rebuild(now: number, input: Partial<ActivityTaskInput> & { scheduledAt: number }) {
      return start(input, clockAt(now));
    }

    it('START_TO_CLOSE fires at the original deadline (t0+11 s), not 10 s after the rebuild', () => {
      const t0 = T0;
      const t = rebuild(t0 + 5 * SECOND, { scheduledAt: t0, startToCloseMs: 10 * SECOND });
      t.actor.send(started(t0 + SECOND));
      expect(t.state().context.startToCloseDeadline).toBe(t0 + 11 * SECOND);
      expectFiresExactlyAt(t, t0 + 11 * SECOND, 'START_TO_CLOSE', 'started');
    });

    it('SCHEDULE_TO_START fires at the original deadline', () => {
      const t = rebuild(T0 + 4 * SECOND, { scheduledAt: T0, scheduleToStartMs: 10 * SECOND });
      expectFiresExactlyAt(t, T0 + 10 * SECOND, 'SCHEDULE_TO_START', 'scheduled');
    });

    it('SCHEDULE_TO_CLOSE fires at the original deadline in scheduled and in started', () => {
      const a = rebuild(T0 + 4 * SECOND, { scheduledAt: T0, scheduleToCloseMs: 10 * SECOND });
      expectFiresExactlyAt(a, T0 + 10 * SECOND, 'SCHEDULE_TO_CLOSE', 'scheduled');
      const b = rebuild(T0 + 4 * SECOND, { scheduledAt: T0, scheduleToCloseMs: 10 * SECOND });
      b.actor.send(started(T0 + 3 * SECOND));
      expectFiresExactlyAt(b, T0 + 10 * SECOND, 'SCHEDULE_TO_CLOSE', 'started');
    });

    it('HEARTBEAT fires relative to the last replayed heartbeat, with its details', () => {
      const t = rebuild(T0 + 4 * SECOND, { scheduledAt: T0, heartbeatMs: 5 * SECOND });
      t.actor.send(started(T0 + SECOND));
      t.actor.send(heartbeat(T0 + 3 * SECOND, 'replayed'));
      expect(t.state().context.heartbeatDeadline).toBe(T0 + 8 * SECOND);
      expectFiresExactlyAt(t, T0 + 8 * SECOND, 'HEARTBEAT', 'started');
      expect(t.state().context.heartbeatDetails).toBe('replayed');
    });

    it('a deadline that already passed fires as soon as the clock advances (0–1 ms)', () => {
      const now = T0 + 60 * SECOND;
      const t = rebuild(now, { scheduledAt: T0, startToCloseMs: 10 * SECOND });
      t.actor.send(started(T0 + SECOND));
      // Nothing fires synchronously while the history is being fed.
      expect(t.state().value).toBe('started');
      expect(t.rec.calls).toEqual([]);
      t.clock.increment(1);
      expect(t.state().value).toBe('timedOut');
      expect(t.state().context.timeoutType).toBe('START_TO_CLOSE');
      expect(t.rec.calls).toEqual([{ timeoutType: 'START_TO_CLOSE' }]);
      expect(t.rec.times[0]).toBeLessThanOrEqual(now + 1);
    });

    it('an already-passed SCHEDULE_TO_START deadline fires as soon as the clock advances', () => {
      const now = T0 + 60 * SECOND;
      const t = rebuild(now, { scheduledAt: T0, scheduleToStartMs: 10 * SECOND });
      expect(t.state().value).toBe('scheduled');
      t.clock.increment(1);
      expect(t.state().value).toBe('timedOut');
      expect(t.rec.calls).toEqual([{ timeoutType: 'SCHEDULE_TO_START' }]);
    });

    it('replaying a history that already holds the timeout does not report it again', () => {
      const t = rebuild(T0 + 60 * SECOND, { scheduledAt: T0, startToCloseMs: 10 * SECOND });
      t.actor.send(started(T0 + SECOND));
      t.actor.send(ev('ActivityTaskTimedOut', T0 + 11 * SECOND, { scheduledEventId: 1, startedEventId: 2, timeoutType: 'START_TO_CLOSE' }));
      advance(t.clock, 60 * SECOND);
      expect(t.state().value).toBe('timedOut');
      expect(t.state().context.timeoutType).toBe('START_TO_CLOSE');
      expect(t.rec.calls).toEqual([]);
    });

    it('replaying a completed history never times out', () => {
      const t = rebuild(T0 + 60 * SECOND, { scheduledAt: T0, scheduleToCloseMs: 10 * SECOND, startToCloseMs: 5 * SECOND });
      t.actor.send(started(T0 + SECOND));
      t.actor.send(ev('ActivityTaskCompleted', T0 + 2 * SECOND, { scheduledEventId: 1, startedEventId: 2 }));
      advance(t.clock, 60 * SECOND);
      expect(t.state().value).toBe('completed');
      expect(t.rec.calls).toEqual([]);
    });
  });

  describe('long timeouts', () => {
    const durations = [
      ['30 days', 30 * DAY],
      ['one year', YEAR_SECONDS * SECOND],
    ] as const;

    it.each(durations)('SCHEDULE_TO_START of %s fires exactly at the deadline', (_n, ms) => {
      const t = start({ scheduleToStartMs: ms });
      advance(t.clock, ms - DAY, DAY);
      expect(t.state().value).toBe('scheduled');
      expectFiresExactlyAt(t, T0 + ms, 'SCHEDULE_TO_START', 'scheduled');
    });

    it.each(durations)('SCHEDULE_TO_CLOSE of %s fires exactly at the deadline (started)', (_n, ms) => {
      const t = start({ scheduleToCloseMs: ms });
      t.actor.send(started(T0 + 10 * SECOND));
      advance(t.clock, ms - DAY, DAY);
      expect(t.state().value).toBe('started');
      expectFiresExactlyAt(t, T0 + ms, 'SCHEDULE_TO_CLOSE', 'started');
    });

    it.each(durations)('START_TO_CLOSE of %s fires exactly at the deadline', (_n, ms) => {
      const t = start({ startToCloseMs: ms });
      t.actor.send(started(T0 + SECOND));
      advance(t.clock, ms - DAY, DAY);
      expect(t.state().value).toBe('started');
      expectFiresExactlyAt(t, T0 + SECOND + ms, 'START_TO_CLOSE', 'started');
    });

    it.each(durations)('HEARTBEAT of %s fires exactly at the deadline', (_n, ms) => {
      const t = start({ heartbeatMs: ms });
      t.actor.send(started(T0));
      expectFiresExactlyAt(t, T0 + ms, 'HEARTBEAT', 'started');
    });
  });
});
