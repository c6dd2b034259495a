import type { MachineClock } from '../../../machines/swf/history-event.js';
import { AslError, StateRuntimeError } from '../asl/errors.js';
import { QueryEvaluationError } from '../asl/jsonata.js';
import { withVariables } from '../asl/json-path.js';
import type { StateGraph } from '../asl/types.js';
import type { SfnEventType, SfnLinkOp, SfnRecord } from './contract.js';
import { contextObject, GO_FAIL, visibleVariables, type Fault, type GraphContext, type GraphInput } from './graph-context.js';
import { inStateCause, stateCause } from './state-cause.js';

/** A child actor to spawn: `src` names a branch/iteration machine registered in the parent's setup. */
export interface Spawn {
  id: string;
  src: string;
  input: GraphInput;
}

/** What a step sees of the machine it runs in. */
export interface StepEnv {
  clock: MachineClock;
  /** The recording actor's id (root: 'root'). */
  selfId: string;
  /** Records ExecutionSucceeded/Failed/… (the root graph only). */
  root: boolean;
  graph: StateGraph;
  /** `$$.Execution.Input` (from the hooks). */
  executionInput(): unknown;
  /** The sealed token of a task key (from the hooks): `$$.Task.Token` of a `.waitForTaskToken` Task. */
  taskToken(key: string): string;
  /** `src` key of a Parallel branch or Map iterator graph: `srcOf(stateName, branchIndex)`. */
  srcOf(state: string, branch: number): string;
  /** Short child-id tag of a state (its name without `/` and `#`, unique in the graph). */
  tagOf(state: string): string;
  /** Told each data-flow step's value (`afterInputPath`, `afterParameters`, …): TestState's inspection. */
  trace?(step: TraceStep, value: unknown): void;
}

/** The JSONPath data-flow steps a state reports through StepEnv.trace, named as TestState's inspectionData names them. */
export type TraceStep = 'afterInputPath' | 'afterParameters' | 'result' | 'afterResultSelector' | 'afterResultPath';

/**
 * One transition's work on a draft of the context: the pure logic of every state fills it, and the
 * machine turns it into assign + record + spawn/stop/send actions, in this order.
 */
export class Step {
  readonly ctx: GraphContext;
  readonly records: SfnRecord[] = [];
  /** Linking work without an event (see SfnLinkOp); done before this step's records. */
  readonly links: SfnLinkOp[] = [];
  readonly spawns: Spawn[] = [];
  readonly stops: string[] = [];
  readonly sends: Array<{ to: string; event: { type: string } }> = [];
  /** Events the graph sends itself after yielding to the event loop (a 0 ms timer). */
  readonly later: Array<{ type: string }> = [];

  /** `$$.Task.Token` while a `.waitForTaskToken` Task's parameters are evaluated. */
  token: string | undefined;

  /** Spawns a child graph and tells it to go once everything recorded before it is out. */
  spawn(k: Spawn): void {
    this.spawns.push(k);
    this.sends.push({ to: k.id, event: { type: 'sfn.go' } });
  }

  /**
   * `firstId`: the event id this step's first record gets (the host numbers events in the order
   * they are recorded: the execution's count so far, plus one). Unknown where there is no history.
   */
  constructor(ctx: GraphContext, readonly env: StepEnv, readonly firstId?: number) {
    this.ctx = { ...ctx };
  }

  now(): number {
    return this.env.clock.now();
  }

  record(type: SfnEventType, details?: Record<string, unknown>, extra?: Omit<SfnRecord, 'type' | 'details'>): void {
    if (type.endsWith('StateEntered')) {
      if (this.firstId === undefined) delete this.ctx.enteredId;
      else this.ctx.enteredId = this.firstId + this.records.length;
    }
    this.records.push({ type, ...(details ? { details } : {}), ...extra });
  }

  /** `$$` for the current state (JSONPath reads the variables in scope through it as `$name`). */
  co() {
    const co = contextObject(this.ctx, this.env.executionInput());
    if (this.token !== undefined) co.Task = { Token: this.token };
    // Most graphs have no variables: `$$` stays a plain object then (it is built on every read).
    return this.ctx.vars === undefined && this.ctx.outer === undefined ? co : withVariables(co, visibleVariables(this.ctx));
  }

  /** A new key/visit number of this actor. */
  nextSeq(): number {
    this.ctx.seq += 1;
    return this.ctx.seq;
  }

  /**
   * Runs `fn`; an error it throws becomes a fault (AslError keeps its name, anything else is
   * States.Runtime). A failed JSONata evaluation is recorded as AWS records it (EvaluationFailed).
   */
  attempt<T>(fn: () => T): { ok: true; value: T } | { ok: false; fault: Fault } {
    try {
      return { ok: true, value: fn() };
    } catch (e) {
      const fault = toFault(e, this.env.selfId, this.ctx);
      if (e instanceof QueryEvaluationError) {
        this.record('EvaluationFailed', { error: fault.error, cause: fault.cause, location: e.location, state: this.ctx.state?.Name ?? '' });
      }
      return { ok: false, fault };
    }
  }

  /** The graph fails with `fault` (no Retry/Catch applies). */
  fail(fault: Fault): void {
    this.ctx.fault = fault;
    this.ctx.go = GO_FAIL;
  }
}

/** The fault of an error thrown in a step of actor `actorId`, in the state `ctx` is in. */
export function toFault(e: unknown, actorId: string, ctx: Pick<GraphContext, 'state' | 'enteredId'>): Fault {
  if (e instanceof StateRuntimeError || e instanceof QueryEvaluationError) {
    const cause = ctx.state && ctx.enteredId !== undefined ? stateCause(ctx.state.Name, ctx.enteredId, e.cause) : inStateCause(actorId, e.cause);
    return { error: e.error, cause };
  }
  if (e instanceof AslError) return { error: e.error, cause: e.cause };
  return { error: 'States.Runtime', cause: e instanceof Error ? e.message : String(e) };
}
