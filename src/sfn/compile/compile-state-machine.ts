import type { AnyStateMachine } from 'xstate';
import type { AslDefinition, MapState, ParallelState, QueryLanguage, StateGraph } from '../asl/types.js';
import type { CompiledStateMachine, CompileOptions, SfnExecutionInput } from './contract.js';
import { iso, type GraphInput } from './graph-context.js';
import { createGraphMachine } from './graph-machine.js';
import { DEFAULT_HISTORY_LIMIT, UnrecordedCounts } from './history-limit.js';

/** The root graph's input: the data is the execution input; `$$` gets the execution and state machine. */
function rootInput(def: AslDefinition, x: SfnExecutionInput): GraphInput {
  const redriven = x.redriveTime !== undefined ? { RedriveTime: iso(x.redriveTime) } : {};
  return {
    data: x.input,
    co: {
      // The input is held once, beside the context (see contextObject), not in every child's.
      Execution: { Id: x.executionArn, StartTime: iso(x.startTime), Name: x.executionName, RoleArn: x.roleArn, RedriveCount: x.redriveCount ?? 0, ...redriven },
      StateMachine: { Id: x.stateMachineArn, Name: x.stateMachineName },
    },
    // A redrive counts the execution's timeout afresh (AWS resets it).
    execDeadline: def.TimeoutSeconds !== undefined ? (x.redriveTime ?? x.startTime) + def.TimeoutSeconds * 1000 : null,
    ...(x.redrive ? { redrive: x.redrive } : {}),
  };
}

/**
 * Every state gets its query language: its own QueryLanguage, else the definition's (AWS: nested
 * states inherit the top level's, not their Parallel's or Map's), else JSONPath. Done in place and
 * idempotent: a definition compiled twice is the same.
 */
export function settleQueryLanguage(graph: StateGraph, top: QueryLanguage): void {
  for (const state of Object.values(graph.States)) {
    state.QueryLanguage ??= top;
    if (state.Type === 'Parallel') (state as ParallelState).Branches.forEach((b) => settleQueryLanguage(b, top));
    if (state.Type === 'Map') settleQueryLanguage((state as MapState).ItemProcessor, top);
  }
}

/**
 * Compiles a validated Amazon States Language definition into the root XState machine of its
 * executions (input SfnExecutionInput, output SfnExecutionOutput). Parallel branches and Map
 * iterators become child machines, spawned by string `src` so the root's persisted snapshot holds them.
 */
export function compileStateMachine(definition: AslDefinition, opts: CompileOptions): CompiledStateMachine {
  const limit = opts.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  if (!Number.isInteger(limit) || limit < 3) throw new RangeError(`historyLimit must be an integer of at least 3, got ${limit}`);
  settleQueryLanguage(definition, definition.QueryLanguage ?? 'JSONPath');
  const unrecorded = new UnrecordedCounts();
  const child = (graph: StateGraph, id: string): AnyStateMachine => createGraphMachine(graph, {
    clock: opts.clock, hooks: opts.hooks, root: false, id, limit, unrecorded, toInput: (input) => input as GraphInput,
  }, child);
  const machine = createGraphMachine(definition, {
    clock: opts.clock, hooks: opts.hooks, root: true, id: 'sfn', limit, unrecorded, toInput: (input) => rootInput(definition, input as SfnExecutionInput),
  }, child);
  return { machine };
}
