/**
 * What a workflow function sees go wrong. Each is an ordinary Error the code can catch; the names
 * follow Temporal's TypeScript SDK where SWF has the same idea.
 */

/** An activity ended without a result: failed, timed out, or could not be scheduled. */
export class ActivityFailure extends Error {
  override readonly name = 'ActivityFailure';
  constructor(
    readonly activityId: string,
    /** The activity's reason (failed), the timeout type (timed out) or the scheduling cause. */
    readonly reason: string,
    /** Its details; for a timed-out activity, the last heartbeat's details. */
    readonly details?: string,
    readonly kind: 'failed' | 'timedOut' | 'scheduleFailed' = 'failed',
  ) {
    super(`activity ${activityId} ${kind === 'timedOut' ? 'timed out' : kind === 'scheduleFailed' ? 'could not be scheduled' : 'failed'}: ${reason}`);
  }
}

/** A child workflow ended without a result (failed, timed out, terminated, or could not start). */
export class ChildWorkflowFailure extends Error {
  override readonly name = 'ChildWorkflowFailure';
  constructor(readonly workflowId: string, readonly reason: string, readonly details?: string) {
    super(`child workflow ${workflowId}: ${reason}`);
  }
}

/**
 * The run was asked to cancel (RequestCancelWorkflowExecution), or an activity or child was canceled.
 * Waits in progress reject with it; code may catch it, clean up (schedule activities as usual) and
 * then return or rethrow. Thrown out of the workflow function it closes the run as canceled.
 */
export class CancelledFailure extends Error {
  override readonly name = 'CancelledFailure';
  constructor(message = 'workflow cancellation requested', readonly details?: string) {
    super(message);
  }
}

/** Workflow code called something whose answer would differ on replay (Date.now, setTimeout…). */
export class DeterminismViolation extends Error {
  override readonly name = 'DeterminismViolation';
}

/** Thrown by wf.continueAsNew: the framework closes the run with ContinueAsNewWorkflowExecution. */
export class ContinueAsNew extends Error {
  override readonly name = 'ContinueAsNew';
  constructor(readonly attributes: Record<string, unknown>) {
    super('continue as new');
  }
}

/** Where the code and its recorded history disagree (the first point only). */
export interface Divergence {
  /** Position among the run's commands (0-based), and the event that recorded it, if any. */
  commandIndex: number;
  event?: { eventId: number; eventType: string; id?: string };
  /** What the code issued there, if anything. */
  command?: { kind: string; id: string };
  message: string;
}

export class NondeterminismError extends Error {
  override readonly name = 'NondeterminismError';
  constructor(readonly divergence: Divergence) {
    super(divergence.message);
  }
}
