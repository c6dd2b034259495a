import type { SfnEventType } from './contract.js';
import type { PendingTask } from './graph-context.js';

/**
 * The history events of a Task: an activity's (`Activity*`) or a service integration's (`Task*`,
 * whose details open with AWS's `resourceType` and `resource`). One table, so the task steps in
 * task-state.ts are written once for both.
 */
type Phase = 'scheduled' | 'started' | 'succeeded' | 'failed' | 'timedOut';

const ACTIVITY: Record<Phase, SfnEventType> = {
  scheduled: 'ActivityScheduled', started: 'ActivityStarted', succeeded: 'ActivitySucceeded', failed: 'ActivityFailed', timedOut: 'ActivityTimedOut',
};
const SERVICE: Record<Phase, SfnEventType> = {
  scheduled: 'TaskScheduled', started: 'TaskStarted', succeeded: 'TaskSucceeded', failed: 'TaskFailed', timedOut: 'TaskTimedOut',
};

/** AWS's default TimeoutSeconds of a Task that waits for a callback (99999999 s). */
export const CALLBACK_TIMEOUT_SECONDS = 99_999_999;

/** The event type of a task's phase. */
export function taskEventType(t: Pick<PendingTask, 'service'>, phase: Phase): SfnEventType {
  return (t.service ? SERVICE : ACTIVITY)[phase];
}

/** A service task's events begin with `{ resourceType, resource }`; an activity's have nothing in front. */
export function taskDetails(t: Pick<PendingTask, 'service'>, rest: Record<string, unknown> = {}): Record<string, unknown> {
  return t.service ? { resourceType: t.service.resourceType, resource: t.service.resource, ...rest } : rest;
}

/** The region of an execution ARN (`arn:<partition>:states:<region>:…`): TaskScheduled's `region`. */
export function regionOf(executionArn: string): string {
  return executionArn.split(':')[3] ?? '';
}

/** Whether a task's heartbeat window is open: an activity once started, a callback task once submitted. */
export function beating(t: PendingTask): boolean {
  if (!t.service) return t.started;
  return t.service.pattern === 'waitForTaskToken' && t.submitted === true;
}

