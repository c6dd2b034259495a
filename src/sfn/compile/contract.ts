import type { AnyStateMachine } from 'xstate';
import type { MachineClock } from '../../../machines/swf/history-event.js';
import type { ServiceResource } from '../integrations/integration.js';

/**
 * The contract between a compiled state machine (compile-state-machine.ts) and the host that runs
 * its executions (src/sfn/kind). The machine holds the whole interpreter state in its context
 * (and in its spawned children for Parallel branches and Map iterations); the host persists each
 * transition's recorded events with the root's persisted snapshot, then acts.
 */

/** Step Functions history event types (the subset ActorFlow records). */
export type SfnEventType =
  | 'ExecutionStarted' | 'ExecutionRedriven' | 'ExecutionSucceeded' | 'ExecutionFailed' | 'ExecutionTimedOut' | 'ExecutionAborted'
  | 'TaskStateEntered' | 'TaskStateExited' | 'TaskStateAborted'
  | 'ActivityScheduled' | 'ActivityStarted' | 'ActivitySucceeded' | 'ActivityFailed' | 'ActivityTimedOut' | 'ActivityScheduleFailed'
  /** A service integration Task (src/sfn/integrations): scheduled, started, submitted (callback, .sync), closed. */
  | 'TaskScheduled' | 'TaskStarted' | 'TaskSubmitted' | 'TaskSucceeded' | 'TaskFailed' | 'TaskTimedOut'
  | 'PassStateEntered' | 'PassStateExited'
  | 'ChoiceStateEntered' | 'ChoiceStateExited'
  | 'WaitStateEntered' | 'WaitStateExited' | 'WaitStateAborted'
  | 'SucceedStateEntered' | 'SucceedStateExited'
  | 'FailStateEntered'
  | 'ParallelStateEntered' | 'ParallelStateStarted' | 'ParallelStateSucceeded' | 'ParallelStateFailed' | 'ParallelStateExited' | 'ParallelStateAborted'
  | 'MapStateEntered' | 'MapStateStarted' | 'MapStateSucceeded' | 'MapStateFailed' | 'MapStateExited' | 'MapStateAborted'
  | 'MapIterationStarted' | 'MapIterationSucceeded' | 'MapIterationFailed' | 'MapIterationAborted'
  /** A Distributed Map's map run (MapRunStarted carries the run's task request; see compile/distributed-map.ts). */
  | 'MapRunStarted' | 'MapRunSucceeded' | 'MapRunFailed'
  /** A JSONata expression failed (details: error, cause, location, state). */
  | 'EvaluationFailed';

/** What a service integration Task calls: its Resource read. */
export type SfnServiceTask = ServiceResource;

/** An activity or service task the host must dispatch once the events recorded with it are persisted. */
export interface SfnTaskRequest {
  /** `<actorId>#<n>`: unique per scheduling attempt within the execution; names the task in its token. */
  key: string;
  /** The activity ARN or service integration ARN (the Task state's Resource). */
  resource: string;
  /** The effective input (after InputPath and Parameters; a service task's parameters), as a JSON string. */
  input: string;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
  /** The Task state's name (a mock's answers are per state name). Absent in tasks recorded by older versions. */
  state?: string;
  /** Set for a service integration Task (TaskScheduled); absent for an activity. */
  service?: SfnServiceTask;
  /** Epoch ms of the task's TimeoutSeconds, if it has one. */
  deadline?: number;
}

/**
 * How the host sets an event's previousEventId when it is not simply the last event of the recording
 * actor (its "chain"), as AWS links Map and Parallel states: a branch or iteration starts from its
 * state's start event, the events that close the state link to the last event of what finished.
 * Chains are actor ids (the position of an actor's next event) or a Map visit's prefix.
 */
export interface SfnLink {
  /** previousEventId is the position of chain `from`, not the recorder's. */
  from?: string;
  /** …or the oldest position waiting in queue `pull` (a Map slot whose iteration finished), when one waits. */
  pull?: string;
  /** previousEventId 0 (AWS: ExecutionAborted). */
  none?: true;
  /** The recorder's chain stays where it was (AWS: MapIterationSucceeded, MapStateSucceeded, ParallelStateSucceeded). */
  keep?: true;
  /** Chains that start at this event (a branch at ParallelStateStarted, an iteration at its MapIterationStarted). */
  seed?: string[];
  /** Chain that moves up to this event (a Map whose slot has no more items to run). */
  join?: string;
  /** Queue that gets the position of chain `from` (a Map slot free for the next iteration). */
  push?: string;
  /** Chains and queues that are done with, after this event. */
  drop?: string[];
}

/** Linking work with no event of its own, done in order with the events around it. */
export type SfnLinkOp =
  /** Chain `into` moves up to the latest position of the `from` chains (a finished branch or iteration). */
  | { op: 'join'; into: string; from: string[] }
  /** Chains and queues that are done with. */
  | { op: 'drop'; keys: string[] };

/** One history event as a machine records it; the host adds id, previousEventId and timestamp. */
export interface SfnRecord {
  /** Linking other than "the recorder's last event" (see SfnLink). */
  link?: SfnLink;
  type: SfnEventType;
  /** The `<camelType>EventDetails` member (strings for input/output JSON, as AWS sends them). */
  details?: Record<string, unknown>;
  /** ActivityScheduled and TaskScheduled, and MapRunStarted (its map run, which the host runs as it runs a task). */
  task?: SfnTaskRequest;
  /** Activity* and Task* events after the scheduling one: the task key they belong to. */
  taskKey?: string;
}

/** Effects the host supplies when it compiles a definition. Called synchronously, in order. */
export interface SfnHooks {
  /**
   * A machine of one execution recorded an event. `system` is the execution's XState actor system
   * (root and spawned children share it: the host maps it to that execution); `actorId` is the
   * recording actor's id, stable across snapshot restore.
   */
  record(system: unknown, actorId: string, e: SfnRecord): void;
  /**
   * History events the execution has recorded so far, ExecutionStarted included (those recorded
   * and not yet persisted too): every actor of the execution checks the 25,000-event quota
   * against this one count, so concurrent branches and iterations share it exactly.
   */
  used(system: unknown): number;
  /** `$$.Execution.Input`, parsed (kept by the host once, not copied into every actor's context). */
  executionInput(system: unknown): unknown;
  /** The sealed task token of a task key (`$$.Task.Token` of a `.waitForTaskToken` Task). */
  taskToken?(system: unknown, key: string): string;
  /** A child actor finished for good: the host may forget its bookkeeping. Optional. */
  ended?(system: unknown, actorId: string): void;
  /** Linking work without an event (see SfnLinkOp), in order with the records. Optional. */
  link?(system: unknown, op: SfnLinkOp): void;
}

/** The root machine's input. */
export interface SfnExecutionInput {
  executionArn: string;
  executionName: string;
  stateMachineArn: string;
  stateMachineName: string;
  roleArn: string;
  /** The execution input, parsed. */
  input: unknown;
  /** Epoch ms. */
  startTime: number;
  /** A redrive (RedriveExecution): the root starts again at the state the last attempt stopped in (see redrive-start.ts). */
  redrive?: RedrivePoint;
  /** How many times the execution was redriven, this start included (`$$.Execution.RedriveCount`). */
  redriveCount?: number;
  /** Epoch ms of this redrive: the execution's TimeoutSeconds counts from here (AWS resets it). */
  redriveTime?: number;
}

/** The root machine's output once its snapshot status is 'done'. */
export type SfnExecutionOutput =
  | { status: 'SUCCEEDED'; output: unknown }
  /**
   * A branch or iteration that failed also says where a redrive starts it again (`redrive`), and
   * whether its States.Timeout was a missed heartbeat (its parent's Retry or Catch may name it so).
   */
  | { status: 'FAILED' | 'TIMED_OUT' | 'ABORTED'; error?: string; cause?: string; redrive?: RedrivePoint; heartbeat?: true };

/**
 * Events the host sends to the root actor (the root forwards task events and rearm to its children).
 * The `sfn.activity.*` events finish service integration tasks too (TaskStarted, TaskSucceeded, …).
 */
export type SfnInputEvent =
  | { type: 'sfn.activity.started'; key: string; workerName?: string }
  /** A `.waitForTaskToken` or `.sync` service task's request was accepted (TaskSubmitted with its output). */
  | { type: 'sfn.task.submitted'; key: string; output: unknown }
  | { type: 'sfn.activity.heartbeat'; key: string }
  | { type: 'sfn.activity.succeeded'; key: string; output: unknown }
  | { type: 'sfn.activity.failed'; key: string; error?: string; cause?: string }
  /** The task's activity does not exist: the host withdrew its ActivityScheduled; the execution fails with `error` at once. */
  | { type: 'sfn.activity.scheduleFailed'; key: string; error: string; cause: string }
  | { type: 'sfn.stop'; error?: string; cause?: string }
  /**
   * After a restore from a persisted snapshot: re-arm every delayed transition from the deadlines in
   * context. Started tasks' heartbeat windows restart now (after a crash: heartbeats write no
   * history), or, woken from sleep, take the deadlines `hb` kept while the execution slept (by task key).
   */
  | { type: 'sfn.rearm'; hb?: Record<string, number> };

export interface CompileOptions {
  clock: MachineClock;
  hooks: SfnHooks;
  /** Most history events of one execution (default 25,000, the AWS quota); past it the execution fails with States.Runtime. */
  historyLimit?: number;
}

export interface CompiledStateMachine {
  /** Root machine of one execution: input SfnExecutionInput, output SfnExecutionOutput. Create actors with `{ id: 'root', clock, input }`. */
  machine: AnyStateMachine;
}

/** Where a redriven execution (or a failed child of a Parallel or Map) starts again: see redrive-start.ts. */
export interface RedrivePoint {
  /** The state to run again. */
  state: string;
  /** Its raw input (what `<Type>StateEntered` shows). */
  input: unknown;
  /** The root's variables as they were. */
  vars?: Record<string, unknown>;
  /** The root's key and visit counter: new task keys and child ids never reuse the attempt before's. */
  seq: number;
  /** A Parallel or Map state: its children that succeeded. */
  keep?: KeptKids;
}

/** Outputs of a Parallel's or Map's children that succeeded (by index), and the state they belong to. */
export interface KeptKids {
  state: string;
  results: Record<string, unknown>;
  /** Children that failed: where each starts again (a redrive runs them from their failed state, not from their start). */
  points?: Record<string, RedrivePoint>;
}
