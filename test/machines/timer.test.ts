import { describe, expect, it } from 'vitest';
import { createActor, type SimulatedClock } from 'xstate';
import { createTimerMachine, type TimerInput } from '../../machines/swf/timer.machine.js';
import { DAY, SECOND, T0, YEAR_SECONDS, advance, callRecorder, captureWarnings, clockAt, ev } from './helpers.js';

function start(input: Partial<TimerInput>, clock: SimulatedClock = clockAt()) {
  const machine = createTimerMachine(clock);
  const rec = callRecorder(clock);
  const actor = createActor(machine.provide({ actions: { reportFired: rec.fn } }), {
    input: { startedAt: clock.now(), startToFireMs: 10 * SECOND, ...input },
    clock,
  });
  actor.start();
  return { actor, rec, clock, state: () => actor.getSnapshot() };
}

function expectFiresExactlyAt(t: ReturnType<typeof start>, deadline: number) {
  t.clock.set(deadline - 1);
  expect(t.state().value).toBe('started');
  expect(t.rec.times).toEqual([]);
  t.clock.increment(1);
  expect(t.state().value).toBe('fired');
  expect(t.state().status).toBe('done');
  expect(t.rec.times).toEqual([deadline]);
}

describe('timer machine', () => {
  it('starts in started with fireDeadline = startedAt + startToFire', () => {
    const t = start({ startedAt: T0 - 250, startToFireMs: 5 * SECOND });
    expect(t.state().value).toBe('started');
    expect(t.state().context).toEqual({ startedAt: T0 - 250, startToFireMs: 5 * SECOND, fireDeadline: T0 - 250 + 5 * SECOND });
  });

  it('fires exactly at the deadline, not 1 ms before, and reports once', () => {
    const t = start({ startToFireMs: 10 * SECOND });
    expectFiresExactlyAt(t, T0 + 10 * SECOND);
    advance(t.clock, 60 * SECOND);
    expect(t.rec.times).toHaveLength(1);
  });

  it('fires when stepped in small increments too', () => {
    const t = start({ startToFireMs: 1500 });
    advance(t.clock, 1499, 100);
    expect(t.state().value).toBe('started');
    advance(t.clock, 1, 1);
    expect(t.state().value).toBe('fired');
    expect(t.rec.times).toEqual([T0 + 1500]);
  });

  it('a zero-second timer fires as soon as the clock advances', () => {
    const t = start({ startToFireMs: 0 });
    expect(t.state().value).toBe('started');
    t.clock.increment(0);
    expect(t.state().value).toBe('fired');
    expect(t.rec.times).toEqual([T0]);
  });

  it('does not fire when canceled 1 ms before the deadline', () => {
    const t = start({ startToFireMs: 10 * SECOND });
    t.clock.set(T0 + 10 * SECOND - 1);
    t.actor.send(ev('TimerCanceled', t.clock.now(), { timerId: 't1', startedEventId: 5 }));
    expect(t.state().value).toBe('canceled');
    expect(t.state().status).toBe('done');
    advance(t.clock, 365 * DAY, DAY);
    expect(t.state().value).toBe('canceled');
    expect(t.rec.times).toEqual([]);
  });

  it('a replayed TimerFired moves to fired without reporting', () => {
    const t = start({ startToFireMs: 10 * SECOND });
    t.actor.send(ev('TimerFired', T0 + 10 * SECOND, { timerId: 't1', startedEventId: 5 }));
    expect(t.state().value).toBe('fired');
    advance(t.clock, 60 * SECOND);
    expect(t.rec.times).toEqual([]);
  });

  it('events after the final state change nothing', () => {
    const t = start({ startToFireMs: 10 * SECOND });
    advance(t.clock, 10 * SECOND);
    expect(t.state().value).toBe('fired');
    captureWarnings(() => t.actor.send(ev('TimerCanceled', t.clock.now(), { timerId: 't1' })));
    expect(t.state().value).toBe('fired');
  });

  describe('rebuild from history', () => {
    it('fires at the original deadline, not startToFire after the rebuild', () => {
      // Started at t0, rebuilt at t0+5 s, 10 s timer: fires at t0+10 s.
      const t = start({ startedAt: T0, startToFireMs: 10 * SECOND }, clockAt(T0 + 5 * SECOND));
      expectFiresExactlyAt(t, T0 + 10 * SECOND);
    });

    it('a deadline that already passed fires as soon as the clock advances (0–1 ms)', () => {
      const now = T0 + 60 * SECOND;
      const t = start({ startedAt: T0, startToFireMs: 10 * SECOND }, clockAt(now));
      expect(t.state().value).toBe('started');
      t.clock.increment(1);
      expect(t.state().value).toBe('fired');
      expect(t.rec.times).toHaveLength(1);
      expect(t.rec.times[0]).toBeLessThanOrEqual(now + 1);
    });

    it('a replayed cancellation whose deadline passed is not reported as fired', () => {
      const t = start({ startedAt: T0, startToFireMs: 10 * SECOND }, clockAt(T0 + 60 * SECOND));
      t.actor.send(ev('TimerCanceled', T0 + 5 * SECOND, { timerId: 't1' }));
      advance(t.clock, SECOND);
      expect(t.state().value).toBe('canceled');
      expect(t.rec.times).toEqual([]);
    });
  });

  describe('long timers', () => {
    it.each([
      ['30 days', 30 * DAY],
      ['one year', YEAR_SECONDS * SECOND],
    ] as const)('a %s timer fires exactly at the deadline', (_n, ms) => {
      const t = start({ startToFireMs: ms });
      advance(t.clock, ms - DAY, DAY);
      expect(t.state().value).toBe('started');
      expectFiresExactlyAt(t, T0 + ms);
    });
  });
});
