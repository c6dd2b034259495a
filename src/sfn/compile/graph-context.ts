import type { ContextObject } from '../asl/types.js';
import type { SfnExecutionOutput, SfnInputEvent } from './contract.js';

/** The parts of the context object (`$$`) fixed for one graph run: execution, state machine, Map item. */
export type BaseContextObject = Pick<ContextObject, 'Execution' | 'StateMachine' | 'Map'>;

/** Input of a graph machine: the root gets it from SfnExecutionInput, a branch or iteration from its parent. */
export interface GraphInput {
  data: unknown;
  co: BaseContextObject;
  /** Epoch ms of the execution's TimeoutSeconds (root only). */
  execDeadline: number | null;
  /** History events this graph (with its children) may still record; see history-limit.ts. */
  budget: number;
}

/** The activity task a Task state waits for. Times are epoch ms. */
export interface PendingTask {
  key: string;
  resource: string;
  /** TimeoutSeconds deadline, counted from scheduling. */
  deadline: number | null;
  heartbeatMs: number | null;
  /** Set when the task starts; moved by each heartbeat (and by a rearm). */
  hbDeadline: number | null;
  started: boolean;
}

/** Spawned children of a Parallel or Map state (one visit). */
export interface Kids {
  /** The visit number (from `seq`) that makes this run's child ids unique. */
  visit: number;
  /** Child actor id per branch/item; null while an item waits for a concurrency slot. */
  ids: Array<string | null>;
  results: unknown[];
  finished: number;
  running: number;
  /** Map: the next item to start. */
  next: number;
  /** Map: the items, the effective input (for ItemSelector) and the concurrency limit (0 = none). */
  items?: unknown[];
  effective?: unknown;
  max?: number;
}

/** A state failure on its way through Retry and Catch. */
export interface Fault {
  error: string;
  cause: string;
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
  /** History events recorded by this actor's steps and by its finished children. */
  events: number;
  budget: number;
  /** The history limit was reached: the graph is on its way to failing, its steps do nothing more. */
  limitHit: boolean;
}

/** What a child graph ends with: its outcome plus the events it recorded, for its parent's count. */
export type GraphOutput = SfnExecutionOutput & { events?: number };

/** Events sent to a graph machine: the host's, the timers' own, and children finishing. */
export type GraphEvent =
  | SfnInputEvent
  | { type: 'sfn.rearm.local' }
  | { type: 'sfn.execTimeout' }
  /** Parent → new child: start running the graph. */
  | { type: 'sfn.go' }
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
    events: 0, budget: input.budget, limitHit: false,
  };
}

/** The context object `$$` for the current state. */
export function contextObject(ctx: GraphContext): ContextObject {
  // In AWS's order (it shows in `$$` written out whole): Execution, StateMachine, State.
  const co: ContextObject = {
    Execution: ctx.co.Execution,
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
