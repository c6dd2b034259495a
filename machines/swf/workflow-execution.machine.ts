import { assign, setup } from 'xstate';
import { foldEvent, foldHistory, initialExecutionState, type ExecutionState } from './execution-state.js';
import { EVENT_TYPES, remaining, type HistoryEvent, type MachineClock } from './history-event.js';

const HISTORY_EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

export interface WorkflowExecutionInput {
  /** Epoch ms at which the execution START_TO_CLOSE timeout fires (SWF forbids NONE here). */
  startToCloseDeadline: number;
}

export interface WorkflowExecutionContext {
  startToCloseDeadline: number;
  execution: ExecutionState;
}

/**
 * Several persisted events at once (one transition): one actor step instead of one per event.
 * `execution`, when given, is the fold of `events` onto the actor's state that the sender has
 * already computed (a commit folds its batch to decide on the follow-up decision task).
 */
export interface HistoryBatchEvent {
  type: 'history.batch';
  events: readonly HistoryEvent[];
  execution?: ExecutionState;
}

export type WorkflowExecutionEvent = HistoryEvent | HistoryBatchEvent;

/**
 * One workflow execution: open → closed.{completed, failed, canceled, terminated, continuedAsNew, timedOut}.
 * Its context is the fold of its history (machines/execution-state.ts); every history event is fed
 * in, one by one or as a `history.batch`.
 */
export function createWorkflowExecutionMachine(clock: MachineClock) {
  const closedBy = (status: ExecutionState['closeStatus']) =>
    ({ context }: { context: WorkflowExecutionContext }) => context.execution.closeStatus === status;
  return setup({
    types: {
      context: {} as WorkflowExecutionContext,
      events: {} as WorkflowExecutionEvent,
      input: {} as WorkflowExecutionInput,
    },
    actions: {
      reportTimeout: () => {},
    },
    delays: {
      startToClose: ({ context }) => remaining(clock, context.startToCloseDeadline),
    },
  }).createMachine({
    id: 'workflowExecution',
    context: ({ input }) => ({ startToCloseDeadline: input.startToCloseDeadline, execution: initialExecutionState() }),
    on: {
      'history.batch': {
        actions: assign({
          execution: ({ context, event }) => event.execution ?? foldHistory(event.events, context.execution),
        }),
      },
      // Only history events are folded: the wildcard also sees XState's internal events (e.g.
      // xstate.done.state.workflowExecution.closed when a closed.* final state is entered).
      '*': {
        guard: ({ event }) => HISTORY_EVENT_TYPES.has(event.type),
        actions: assign({ execution: ({ context, event }) => foldEvent(context.execution, event as HistoryEvent) }),
      },
    },
    initial: 'open',
    states: {
      open: {
        always: [
          { guard: closedBy('COMPLETED'), target: 'closed.completed' },
          { guard: closedBy('FAILED'), target: 'closed.failed' },
          { guard: closedBy('CANCELED'), target: 'closed.canceled' },
          { guard: closedBy('TERMINATED'), target: 'closed.terminated' },
          { guard: closedBy('CONTINUED_AS_NEW'), target: 'closed.continuedAsNew' },
          { guard: closedBy('TIMED_OUT'), target: 'closed.timedOut' },
        ],
        after: {
          startToClose: { target: 'closed.timedOut', actions: 'reportTimeout' },
        },
      },
      closed: {
        // XState v5 requires an initial child for every compound state; every transition into
        // `closed` names its child explicitly, so this is never used to pick the close kind.
        initial: 'completed',
        states: {
          completed: { type: 'final' },
          failed: { type: 'final' },
          canceled: { type: 'final' },
          terminated: { type: 'final' },
          continuedAsNew: { type: 'final' },
          timedOut: { type: 'final' },
        },
      },
    },
  });
}

export type WorkflowExecutionMachine = ReturnType<typeof createWorkflowExecutionMachine>;
