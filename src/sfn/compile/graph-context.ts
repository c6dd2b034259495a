import type { ContextObject } from '../asl/types.js';
import type { KeptKids, RedrivePoint, SfnExecutionOutput, SfnInputEvent, SfnServiceTask } from './contract.js';

/**
 * The parts of the context object (`$$`) fixed for one graph run: execution, state machine, Map
 * item. `Execution.Input` is not kept here (the hooks supply it): a copy in every actor's context
 * would put the execution input into every persisted snapshot once per live branch or iteration.
 */
export type BaseContextObject = Pick<ContextObject, 'StateMachine' | 'Map'> & { Execution: Omit<ContextObject['Execution'], 'Input'> & { Input?: unknown } };

/** Input of a graph machine: the root gets it from SfnExecutionInput, a branch or iteration from its parent. */
export interface GraphInput {
  data: unknown;
  co: BaseContextObject;
  /** Epoch ms of the execution's TimeoutSeconds (root only). */
  execDeadline: number | null;
  /** A branch or iteration: the variables of the scopes around it (read-only here). */
  outer?: Record<string, unknown>;
  /** A redriven execution's root: where it starts again (see redrive-start.ts). */
  redrive?: RedrivePoint;
}

/** The activity task a Task state waits for. Times are epoch ms. */
export interface PendingTask {
  key: string;
  resource: string;
  /** TimeoutSeconds deadline, counted from scheduling. */
  deadline: number | null;
  heartbeatMs: number | null;
  /** Set when the task starts (a callback task: when it is submitted); moved by each heartbeat (and by a rearm). */
  hbDeadline: number | null;
  started: boolean;
  /** A service integration Task: what it calls (absent for an activity). */
  service?: SfnServiceTask;
  /** A service task's request was accepted (TaskSubmitted). */
  submitted?: boolean;
}

/** Spawned children of a Parallel or Map state (one visit). Every operation on it is O(1) in the number of branches or items. */
export interface Kids {
  /** The visit number (from `seq`) that makes this run's child ids unique. */
  visit: number;
  /** Child ids are `<prefix><index>`. */
  prefix: string;
  /** Branches or items. */
  total: number;
  /** The running children: actor id → branch/item index. */
  live: Record<string, number>;
  /** Outputs by index (filled in place as children finish) and their JSON size in bytes so far. */
  results: unknown[];
  resultBytes: number;
  finished: number;
  running: number;
  /** The next branch/item to start. */
  next: number;
  /** At most this many children run at once (Map: MaxConcurrency within AWS's 40; Parallel: all). */
  max: number;
  /** Children started since the graph last yielded to the event loop. */
  burst: number;
  /** A `sfn.kids.resume` is on its way: the graph yielded and starts more children when it comes. */
  paused: boolean;
  /** Parallel with more branches than one turn starts: the branches' input, for the later turns. */
  input?: unknown;
  /** A redriven visit: outputs of the children that succeeded in the attempt before, by index; they do not run again. */
  kept?: Record<string, unknown>;
  /** Redrive points of the children that failed: in the attempt before (they start again there), or in this visit (for a redrive to come). */
  points?: Record<string, RedrivePoint>;
}

/** A state failure on its way through Retry and Catch. */
export interface Fault {
  error: string;
  cause: string;
  /**
   * A missed heartbeat. AWS records it as States.Timeout (the task's event, the execution's error);
   * only a Retry or Catch may name it apart, as States.HeartbeatTimeout.
   */
  heartbeat?: true;
}

/**
 * Where the current state goes next: `goTo(name)` for an ASL state, or one of the internal routes
 * `$end` (graph succeeded), `$fail` (graph failed with `fault`), `$retry`, `$wait` (stay: a timer or
 * an outside event moves on).
 */
export type Go = string;

/** Everything a graph machine knows; JSON-serialisable (the host persists it). */
export interface GraphContext {
  co: BaseContextObject;
  /** The current data: the input of the state being run, the output once it exits. */
  data: unknown;
  /** The raw input of the current state (ResultPath writes into it). */
  input: unknown;
  state: ContextObject['State'] | null;
  /**
   * The event id of the current state's `<Type>StateEntered` (its runtime errors' causes name it).
   * Absent in contexts stored before it was kept, and in TestState, which has no history.
   */
  enteredId?: number;
  go: Go | null;
  fault: Fault | null;
  /** Retry counters of the current state, per retrier. */
  retries: number[];
  retryAt: number | null;
  /** Counts task keys and child visits of this actor. */
  seq: number;
  task: PendingTask | null;
  waitUntil: number | null;
  kids: Kids | null;
  execDeadline: number | null;
  outcome: SfnExecutionOutput | null;
  /** The history limit was reached: the graph is on its way to failing, its steps do nothing more. */
  limitHit: boolean;
  /**
   * Workflow variables this graph assigned (its own scope). Absent in contexts persisted before
   * variables existed: read it through visibleVariables().
   */
  vars?: Record<string, unknown>;
  /** The variables of the scopes around a branch or iteration, fixed when it started (see GraphInput). */
  outer?: Record<string, unknown>;
  /** The children of the current Parallel or Map visit that succeeded, kept when it ended (what a redrive keeps; see redrive-start.ts). */
  kept?: KeptKids;
  /** A redrive: the children of the next visit of this state that are not run again. */
  keep?: KeptKids;
  /** A redrive: the state the graph starts at (read once, by its first transition). */
  redriveTo?: string;
}

const NO_VARIABLES: Record<string, unknown> = Object.freeze({});

/** The variables a state of this graph reads: the outer scopes', shadowed by its own. */
export function visibleVariables(ctx: GraphContext): Record<string, unknown> {
  if (!ctx.outer) return ctx.vars ?? NO_VARIABLES;
  return ctx.vars ? { ...ctx.outer, ...ctx.vars } : ctx.outer;
}


/** Events sent to a graph machine: the host's, the timers' own, and children finishing. */
export type GraphEvent =
  | SfnInputEvent
  | { type: 'sfn.rearm.local'; hb?: Record<string, number> }
  | { type: 'sfn.execTimeout' }
  /** Parent → new child: start running the graph. */
  | { type: 'sfn.go' }
  /** A Parallel or Map that yielded to the event loop starts its next children. */
  | { type: 'sfn.kids.resume' }
  | { type: `xstate.done.actor.${string}`; output: unknown; actorId: string };

/** Internal routes. */
export const GO_END = '$end';
export const GO_FAIL = '$fail';
export const GO_RETRY = '$retry';
export const GO_WAIT = '$wait';

/** The route to an ASL state (kept apart from the internal routes, whatever the state is called). */
export function goTo(stateName: string): Go {
  return `>${stateName}`;
}

export function initialContext(input: GraphInput): GraphContext {
  return {
    co: input.co, data: input.data, input: input.data, state: null, go: null, fault: null, retries: [], retryAt: null,
    seq: 0, task: null, waitUntil: null, kids: null, execDeadline: input.execDeadline, outcome: null,
    limitHit: false,
    ...(input.outer && Object.keys(input.outer).length > 0 ? { outer: input.outer } : {}),
  };
}

/** The context object `$$` for the current state (`executionInput`: `$$.Execution.Input`). */
export function contextObject(ctx: GraphContext, executionInput: unknown): ContextObject {
  // In AWS's order (it shows in `$$` written out whole): Execution {Id, Input, StartTime, Name,
  // RoleArn, RedriveCount}, StateMachine, State. (Contexts persisted before the input was held once
  // still carry an Input of their own: the execution's is the same.)
  const { Id, Input: _held, ...rest } = ctx.co.Execution as ContextObject['Execution'];
  const co: ContextObject = {
    Execution: { Id, Input: executionInput, ...rest },
    StateMachine: ctx.co.StateMachine,
    State: ctx.state ?? { Name: '', EnteredTime: ctx.co.Execution.StartTime },
  };
  if (ctx.co.Map) co.Map = ctx.co.Map;
  return co;
}

/** JSON text of a value as AWS puts it in event details (undefined → null). */
export function json(v: unknown): string {
  return JSON.stringify(v ?? null);
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
