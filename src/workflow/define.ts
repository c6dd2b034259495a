import type { ActivityTask } from '../sdk/activity-worker.js';
import type { WorkflowContext } from './context.js';
import type { Duration } from './duration.js';

type ChildPolicy = 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON';

export interface WorkflowOptions {
  name: string;
  version: string;
  /** The task list its decision tasks go to (registered as the type's default). */
  taskList: string;
  /** The version of activities named by a string in wf.activity (default: this workflow's version). */
  activityVersion?: string;
  /** Registration defaults (registerTypes). */
  executionStartToCloseTimeout?: Duration;
  taskStartToCloseTimeout?: Duration;
  childPolicy?: ChildPolicy;
  description?: string;
}

export interface WorkflowDefinition<I = any, O = any> extends WorkflowOptions {
  readonly kind: 'workflow';
  readonly fn: (wf: WorkflowContext, input: I) => Promise<O>;
}

/**
 * A workflow as code: an async function of the context and the run's input, whose result (or error)
 * closes the run. It runs again from the start on every decision task, replayed through the history,
 * so it must decide only from what the context gives it (see README, "Workflows as code").
 */
export function defineWorkflow<I = any, O = any>(o: WorkflowOptions, fn: (wf: WorkflowContext, input: I) => Promise<O>): WorkflowDefinition<I, O> {
  return { ...o, kind: 'workflow', fn };
}

/** What an activity's code gets besides its input. */
export interface ActivityFunctionContext {
  /** Records a heartbeat with these details; resolves to true when the workflow asked to cancel the task. */
  heartbeat(details?: unknown): Promise<boolean>;
  /** True once a heartbeat answered that cancellation was requested. */
  readonly cancelRequested: boolean;
  /** The task: ids, type, the run it belongs to. */
  readonly task: ActivityTask;
}

export interface ActivityOptions {
  name: string;
  version: string;
  /** The task list it is scheduled on by default (registered as the type's default). */
  taskList?: string;
  scheduleToStartTimeout?: Duration | 'NONE';
  startToCloseTimeout?: Duration | 'NONE';
  scheduleToCloseTimeout?: Duration | 'NONE';
  heartbeatTimeout?: Duration | 'NONE';
  description?: string;
}

export interface ActivityDefinition<I = any, O = any> extends ActivityOptions {
  readonly kind: 'activity';
  readonly fn: (input: I, ctx: ActivityFunctionContext) => Promise<O> | O;
}

/**
 * An activity as a plain async function. Throw ActivityFailed for a failure with your own reason
 * (what a retry policy's `nonRetryable` matches), ActivityCanceled to answer a cancellation.
 */
export function defineActivity<I = any, O = any>(o: ActivityOptions, fn: (input: I, ctx: ActivityFunctionContext) => Promise<O> | O): ActivityDefinition<I, O> {
  return { ...o, kind: 'activity', fn };
}

export const typeKey = (t: { name: string; version: string }) => `${t.name}\u0000${t.version}`;
