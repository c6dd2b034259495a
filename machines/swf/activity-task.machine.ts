import { assign, setup } from 'xstate';
import {
  deadlineAfter, remaining, type HistoryEvent, type MachineClock, type TimeoutType,
} from './history-event.js';

/** Durations in ms; `null` is SWF's "NONE". */
export interface ActivityTaskInput {
  scheduledAt: number;
  scheduleToStartMs: number | null;
  scheduleToCloseMs: number | null;
  startToCloseMs: number | null;
  heartbeatMs: number | null;
}

export interface ActivityTaskContext extends ActivityTaskInput {
  scheduleToStartDeadline: number | null;
  scheduleToCloseDeadline: number | null;
  startToCloseDeadline: number | null;
  heartbeatDeadline: number | null;
  cancelRequested: boolean;
  heartbeatDetails: string | undefined;
  timeoutType: TimeoutType | undefined;
}

export type ActivityTaskEvent =
  | HistoryEvent<'ActivityTaskStarted'>
  | HistoryEvent<'ActivityTaskCompleted'>
  | HistoryEvent<'ActivityTaskFailed'>
  | HistoryEvent<'ActivityTaskCanceled'>
  | HistoryEvent<'ActivityTaskTimedOut'>
  | HistoryEvent<'ActivityTaskCancelRequested'>
  | { type: 'Heartbeat'; at: number; details?: string };

/**
 * One activity task: scheduled → started → completed | failed | canceled | timedOut.
 * All four SWF activity timeouts are delayed transitions whose delays are read from absolute
 * deadlines in context, so a task rebuilt from history fires at its original deadlines.
 */
export function createActivityTaskMachine(clock: MachineClock) {
  const timeout = (timeoutType: TimeoutType) => [
    { type: 'markTimedOut' as const, params: { timeoutType } },
    { type: 'reportTimeout' as const, params: { timeoutType } },
  ];
  return setup({
    types: {
      context: {} as ActivityTaskContext,
      events: {} as ActivityTaskEvent,
      input: {} as ActivityTaskInput,
    },
    actions: {
      markTimedOut: assign((_, p: { timeoutType: TimeoutType }) => ({ timeoutType: p.timeoutType })),
      /** Provided by the runtime: append ActivityTaskTimedOut (details = context.heartbeatDetails). */
      reportTimeout: (_args, _p: { timeoutType: TimeoutType }) => {},
    },
    guards: {
      hasScheduleToStart: ({ context }) => context.scheduleToStartDeadline !== null,
      hasScheduleToClose: ({ context }) => context.scheduleToCloseDeadline !== null,
      hasStartToClose: ({ context }) => context.startToCloseDeadline !== null,
      hasHeartbeat: ({ context }) => context.heartbeatDeadline !== null,
    },
    delays: {
      scheduleToStart: ({ context }) => remaining(clock, context.scheduleToStartDeadline),
      scheduleToClose: ({ context }) => remaining(clock, context.scheduleToCloseDeadline),
      startToClose: ({ context }) => remaining(clock, context.startToCloseDeadline),
      heartbeat: ({ context }) => remaining(clock, context.heartbeatDeadline),
    },
  }).createMachine({
    id: 'activityTask',
    context: ({ input }) => ({
      ...input,
      scheduleToStartDeadline: deadlineAfter(input.scheduledAt, input.scheduleToStartMs),
      scheduleToCloseDeadline: deadlineAfter(input.scheduledAt, input.scheduleToCloseMs),
      startToCloseDeadline: null,
      heartbeatDeadline: null,
      cancelRequested: false,
      heartbeatDetails: undefined,
      timeoutType: undefined,
    }),
    initial: 'scheduled',
    on: {
      ActivityTaskCancelRequested: { actions: assign({ cancelRequested: true }) },
    },
    states: {
      scheduled: {
        after: {
          scheduleToStart: { guard: 'hasScheduleToStart', target: 'timedOut', actions: timeout('SCHEDULE_TO_START') },
          scheduleToClose: { guard: 'hasScheduleToClose', target: 'timedOut', actions: timeout('SCHEDULE_TO_CLOSE') },
        },
        on: {
          ActivityTaskStarted: {
            target: 'started',
            actions: assign(({ context, event }) => ({
              startToCloseDeadline: deadlineAfter(event.at, context.startToCloseMs),
              heartbeatDeadline: deadlineAfter(event.at, context.heartbeatMs),
            })),
          },
          ActivityTaskCanceled: 'canceled',
          ActivityTaskTimedOut: { target: 'timedOut', actions: assign({ timeoutType: ({ event }) => event.attrs.timeoutType as TimeoutType }) },
        },
      },
      started: {
        after: {
          startToClose: { guard: 'hasStartToClose', target: 'timedOut', actions: timeout('START_TO_CLOSE') },
          scheduleToClose: { guard: 'hasScheduleToClose', target: 'timedOut', actions: timeout('SCHEDULE_TO_CLOSE') },
          heartbeat: { guard: 'hasHeartbeat', target: 'timedOut', actions: timeout('HEARTBEAT') },
        },
        on: {
          // Re-entering restarts the state's timers; each delay is re-read from its deadline,
          // so only the heartbeat deadline moves.
          Heartbeat: {
            target: 'started',
            reenter: true,
            actions: assign(({ context, event }) => ({
              heartbeatDeadline: deadlineAfter(event.at, context.heartbeatMs),
              heartbeatDetails: event.details ?? context.heartbeatDetails,
            })),
          },
          ActivityTaskCompleted: 'completed',
          ActivityTaskFailed: 'failed',
          ActivityTaskCanceled: 'canceled',
          ActivityTaskTimedOut: { target: 'timedOut', actions: assign({ timeoutType: ({ event }) => event.attrs.timeoutType as TimeoutType }) },
        },
      },
      completed: { type: 'final' },
      failed: { type: 'final' },
      canceled: { type: 'final' },
      timedOut: { type: 'final' },
    },
  });
}

export type ActivityTaskMachine = ReturnType<typeof createActivityTaskMachine>;
