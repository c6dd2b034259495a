import { setup } from 'xstate';
import { remaining, type HistoryEvent, type MachineClock } from './history-event.js';

export interface TimerInput {
  startedAt: number;
  startToFireMs: number;
}

export interface TimerContext extends TimerInput {
  fireDeadline: number;
}

export type TimerEvent = HistoryEvent<'TimerFired'> | HistoryEvent<'TimerCanceled'>;

/** A decider's timer (StartTimer): started → fired | canceled. */
export function createTimerMachine(clock: MachineClock) {
  return setup({
    types: { context: {} as TimerContext, events: {} as TimerEvent, input: {} as TimerInput },
    actions: { reportFired: () => {} },
    delays: { fire: ({ context }) => remaining(clock, context.fireDeadline) },
  }).createMachine({
    id: 'timer',
    context: ({ input }) => ({ ...input, fireDeadline: input.startedAt + input.startToFireMs }),
    initial: 'started',
    states: {
      started: {
        after: { fire: { target: 'fired', actions: 'reportFired' } },
        on: { TimerFired: 'fired', TimerCanceled: 'canceled' },
      },
      fired: { type: 'final' },
      canceled: { type: 'final' },
    },
  });
}

export type TimerMachine = ReturnType<typeof createTimerMachine>;
