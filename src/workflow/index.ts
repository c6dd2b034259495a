/** Workflows as code on SWF: the public surface, by name. */
export { defineWorkflow, defineActivity, type WorkflowDefinition, type WorkflowOptions, type ActivityDefinition, type ActivityOptions as ActivityTypeOptions, type ActivityFunctionContext } from './define.js';
export { WorkflowContext, type ActivityOptions, type ChildOptions, type ChildHandle, type ContinueAsNewOptions, type RetryPolicy, type TypeRef } from './context.js';
export { ActivityFailure, CancelledFailure, ChildWorkflowFailure, DeterminismViolation, NondeterminismError, type Divergence } from './errors.js';
export { startWorkflowWorker, registerTypes, NONDETERMINISM_MARKER, type WorkflowWorker, type WorkflowWorkerOptions, type NondeterminismPolicy } from './worker.js';
export { replayHistory, replayWorkflow } from './replay.js';
export type { ReplayResult, RunInfo } from './run.js';
export type { Duration } from './duration.js';
export { ActivityFailed, ActivityCanceled } from '../sdk/activity-worker.js';
