import { applyInputPath } from '../asl/data-flow.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { ChoiceState, FailState, MapState, ParallelState, PassState, State, SucceedState, TaskState, WaitState } from '../asl/types.js';
import { runChoice } from '../compile/choice-state.js';
import { GO_WAIT } from '../compile/graph-context.js';
import { itemsOf } from '../compile/map-state.js';
import { branchInput } from '../compile/parallel-state.js';
import { runFail, runPass, runSucceed } from '../compile/pass-succeed-fail.js';
import { evalField, isJsonata } from '../compile/query.js';
import { decideFault } from '../compile/retry-catch.js';
import { enterState, finishWithResult } from '../compile/state-flow.js';
import { runWait, waitDone } from '../compile/wait-state.js';
import type { TestMock } from './request.js';
import type { TestStep } from './test-step.js';

/** Where a Task, Map or Parallel gets its result or error: the mock, or (a Task without one) its integration, given the state's input. */
export type Answer = (input: unknown) => TestMock | Promise<TestMock>;

/** What the Map under test showed of its items (DEBUG): JSONPath's effective input and items, MaxConcurrency. */
export interface MapInspection {
  afterInputPath?: unknown;
  afterItemsPath?: unknown;
  maxConcurrency: number;
}

/**
 * Runs `def` once on the step, with the compiled states' own logic (compile/): Pass, Choice,
 * Succeed, Fail and Wait (which does not wait) exactly as an execution runs them; a Task, Map or
 * Parallel computes its input as it would and takes its result (or its error) from `answer`, then
 * goes through ResultSelector, ResultPath, OutputPath, Assign, Retry and Catch as in an execution.
 * The outcome is left on the step (its context's `go`, `data`, `fault`, `vars`).
 */
export async function runState(s: TestStep, name: string, def: State, answer: Answer, retried: number): Promise<MapInspection | undefined> {
  enterState(s, name, def);
  // The attempt under test comes after `retried` retries (stateConfiguration.retrierRetryCount).
  if (retried > 0) s.ctx.retries = ((def as { Retry?: unknown[] }).Retry ?? []).map(() => retried);
  switch (def.Type) {
    case 'Pass': runPass(s, def as PassState); return undefined;
    case 'Choice': traceInputPath(s, def); runChoice(s, def as ChoiceState); return undefined;
    case 'Succeed': traceInputPath(s, def); runSucceed(s, def as SucceedState); return undefined;
    case 'Fail': traceInputPath(s, def); runFail(s, def as FailState); return undefined;
    case 'Wait':
      traceInputPath(s, def);
      runWait(s, def as WaitState);
      if (s.ctx.go === GO_WAIT) waitDone(s, def as WaitState);
      return undefined;
    case 'Task': await work(s, def, () => taskInput(s, def as TaskState), answer); return undefined;
    case 'Parallel': await work(s, def, () => { traceInputPath(s, def); return branchInput(s, def as ParallelState); }, answer); return undefined;
    case 'Map': return await runMap(s, name, def as MapState, answer);
  }
}

/** JSONPath: the effective input as InputPath gives it (a path that matches nothing shows nothing). */
function traceInputPath(s: TestStep, def: State): void {
  if (isJsonata(def)) return;
  const r = s.attempt(() => applyInputPath(s.ctx.input, def.InputPath, s.co()));
  if (r.ok) s.env.trace?.('afterInputPath', r.value);
  else s.lastFault = undefined;
}

/** A Task's input: InputPath → Parameters (with `$$`), or JSONata Arguments (default `$states.input`). */
function taskInput(s: TestStep, def: TaskState): unknown {
  if (isJsonata(def)) return def.Arguments === undefined ? s.ctx.input : evalField(s, def.Arguments, 'Arguments');
  const co = s.co();
  const effective = applyInputPath(s.ctx.input, def.InputPath, co);
  s.env.trace?.('afterInputPath', effective);
  return def.Parameters !== undefined ? evaluateTemplate(def.Parameters, effective, co) : effective;
}

/** A state that does work: its input, then the answer's result through the output steps, or its error through Retry/Catch. */
async function work(s: TestStep, def: State, input: () => unknown, answer: Answer): Promise<void> {
  const r = s.attempt(input);
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return;
  }
  if (isJsonata(def)) s.traced.afterArguments = r.value;
  else s.env.trace?.('afterParameters', r.value);
  settle(s, def, await answer(r.value));
}

function settle(s: TestStep, def: State, answer: TestMock): void {
  if (answer.errorOutput) {
    const fault = { error: answer.errorOutput.error, cause: answer.errorOutput.cause ?? '' };
    s.lastFault = fault;
    decideFault(s, def, fault);
    return;
  }
  s.env.trace?.('result', answer.result);
  finishWithResult(s, def as TaskState, answer.result);
}

/** Map: the items as the Map reads them (shown in DEBUG), then the mocked result of all its iterations. */
async function runMap(s: TestStep, name: string, def: MapState, answer: Answer): Promise<MapInspection> {
  const shown: MapInspection = { maxConcurrency: typeof def.MaxConcurrency === 'number' ? def.MaxConcurrency : 0 };
  const r = s.attempt(() => itemsOf(s, name, def));
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return shown;
  }
  if (!isJsonata(def)) {
    shown.afterInputPath = r.value.effective;
    shown.afterItemsPath = r.value.items;
  }
  settle(s, def, await answer(r.value.items));
  return shown;
}
