/**
 * The public surface of `actorflow` (the SDK: what workers, deciders and callers import), by name.
 * It imports nothing of the server: an engine node is `actorflow/server`, the time-skipping test
 * environment `actorflow/testing`.
 */
import type * as Swf from './sdk/types/swf.js';
import type * as Sfn from './sdk/types/sfn.js';

export { ActorFlowClient, attributesOf, ignore } from './sdk/client.js';
export type { ClientOptions, WireEvent } from './sdk/client.js';
export type { CallOptions, PollExtension, SfnMethods, SwfMethods } from './sdk/typed-client.js';
export { Decider } from './sdk/decider.js';
export type { DeciderOptions, DecisionResult, DecisionTask } from './sdk/decider.js';
export { decisions } from './sdk/decisions.js';
export type { Seconds } from './sdk/decisions.js';
export { activity, activityResult, newEvents, signalsReceived, timersFired, workflowInput } from './sdk/history.js';
export type { ActivityState, DecisionTaskHistory, Events, HistoryEvent, ReceivedSignal } from './sdk/history.js';
export { ActivityCanceled, ActivityFailed, ActivityWorker } from './sdk/activity-worker.js';
export type { ActivityContext, ActivityHandler, ActivityTask, ActivityWorkerOptions } from './sdk/activity-worker.js';
export { startSfnActivityWorker } from './sdk/sfn-activity-worker.js';
export type { SfnActivityContext, SfnActivityWorker, SfnActivityWorkerOptions } from './sdk/sfn-activity-worker.js';
export {
  defineActivity, defineWorkflow, registerTypes, replayHistory, replayWorkflow, startWorkflowWorker, WorkflowContext,
  ActivityFailure, CancelledFailure, ChildWorkflowFailure, DeterminismViolation, NondeterminismError, NONDETERMINISM_MARKER,
} from './workflow/index.js';
export type {
  ActivityDefinition, ActivityFunctionContext, ActivityOptions, ActivityTypeOptions, ChildHandle, ChildOptions, ContinueAsNewOptions,
  Divergence, Duration, NondeterminismPolicy, ReplayResult, RetryPolicy, RunInfo, TypeRef, WorkflowDefinition, WorkflowOptions,
  WorkflowWorker, WorkflowWorkerOptions,
} from './workflow/index.js';
export { Fault, isFault } from './protocol/faults.js';
export type { FaultName } from './protocol/faults.js';
export { devUser } from './nats/connect-options.js';
export type { NatsAuth } from './nats/connect-options.js';
/** The input and output types of every SWF action (`Swf.StartWorkflowExecutionInput`, `Swf.Run`, …), from the AWS model. */
export type { Swf };
/** The input and output types of every Step Functions action (`Sfn.StartExecutionInput`, …), from the AWS model. */
export type { Sfn };
