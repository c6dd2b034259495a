import { assign, setup } from 'xstate';
import {
  deadlineAfter, remaining, type HistoryEvent, type MachineClock, type TimeoutType,
} from './history-event.js';

export interface DecisionTaskInput {
  scheduledAt: number;
  startToCloseMs: number | null;
  /** Only set when the decider redirected the task list with taskListScheduleToStartTimeout. */
  scheduleToStartMs: number | null;
}

export interface DecisionTaskContext extends DecisionTaskInput {
  scheduleToStartDeadline: number | null;
  startToCloseDeadline: number | null;
  timeoutType: TimeoutType | undefined;
}

export type DecisionTaskEvent =
  | HistoryEvent<'DecisionTaskStarted'>
  | HistoryEvent<'DecisionTaskCompleted'>
  | HistoryEvent<'DecisionTaskTimedOut'>;

/** One decision task: scheduled → started → completed | timedOut (START_TO_CLOSE, SCHEDULE_TO_START). */
export function createDecisionTaskMachine(clock: MachineClock) {
  const timeout = (timeoutType: TimeoutType) => [
    { type: 'markTimedOut' as const, params: { timeoutType } },
    { type: 'reportTimeout' as const, params: { timeoutType } },
  ];
  return setup({
    types: {
      context: {} as DecisionTaskContext,
      events: {} as DecisionTaskEvent,
      input: {} as DecisionTaskInput,
    },
    actions: {
      markTimedOut: assign((_, p: { timeoutType: TimeoutType }) => ({ timeoutType: p.timeoutType })),
      markReplayedTimeout: assign({ timeoutType: ({ event }) => event.attrs.timeoutType as TimeoutType }),
      reportTimeout: (_args, _report: { timeoutType: TimeoutType }) => {},
    },
    guards: {
      hasScheduleToStart: ({ context }) => context.scheduleToStartDeadline !== null,
      hasStartToClose: ({ context }) => context.startToCloseDeadline !== null,
    },
    delays: {
      scheduleToStart: ({ context }) => remaining(clock, context.scheduleToStartDeadline),
      startToClose: ({ context }) => remaining(clock, context.startToCloseDeadline),
    },
  }).createMachine({
    id: 'decisionTask',
    context: ({ input }) => ({
      ...input,
      scheduleToStartDeadline: deadlineAfter(input.scheduledAt, input.scheduleToStartMs),
      startToCloseDeadline: null,
      timeoutType: undefined,
    }),
    initial: 'scheduled',
    states: {
      scheduled: {
        after: {
          scheduleToStart: { guard: 'hasScheduleToStart', target: 'timedOut', actions: timeout('SCHEDULE_TO_START') },
        },
        on: {
          DecisionTaskStarted: {
            target: 'started',
            actions: assign({ startToCloseDeadline: ({ context, event }) => deadlineAfter(event.at, context.startToCloseMs) }),
          },
          DecisionTaskTimedOut: { target: 'timedOut', actions: 'markReplayedTimeout' },
        },
      },
      started: {
        after: {
          startToClose: { guard: 'hasStartToClose', target: 'timedOut', actions: timeout('START_TO_CLOSE') },
        },
        on: {
          DecisionTaskCompleted: 'completed',
          DecisionTaskTimedOut: { target: 'timedOut', actions: 'markReplayedTimeout' },
        },
      },
      completed: { type: 'final' },
      timedOut: { type: 'final' },
    },
  });
}

export type DecisionTaskMachine = ReturnType<typeof createDecisionTaskMachine>;
