import { withVariables } from '../asl/json-path.js';
import type { ContextObject, State } from '../asl/types.js';
import { initialContext, visibleVariables, type BaseContextObject, type Fault } from '../compile/graph-context.js';
import { Step, type StepEnv, type TraceStep } from '../compile/step.js';
import type { MachineClock } from '../../../machines/swf/history-event.js';

/** What a tested state's data flow went through, by inspectionData member. */
export type Traced = Partial<Record<TraceStep | 'afterArguments', unknown>>;

/**
 * The compiled states' own step (compile/step.ts) with what TestState needs around it: `$$` is the
 * context object the request gives (or the default one) as it is, each data-flow step is kept for
 * the inspection data, and the last fault a step raised is remembered (a catcher clears the
 * context's fault: the answer still names the error it caught).
 */
export class TestStep extends Step {
  readonly traced: Traced;
  lastFault: Fault | undefined;

  constructor(name: string, def: State, input: unknown, variables: Record<string, unknown>, private readonly context: ContextObject, clock: MachineClock) {
    const traced: Traced = {};
    const env: StepEnv = {
      clock, selfId: 'root', root: true, graph: { StartAt: name, States: { [name]: def } },
      executionInput: () => context.Execution.Input,
      // `$$.Task.Token` is the context's own (co() below): no task of an execution waits for it.
      taskToken: () => context.Task?.Token ?? '',
      srcOf: (state, branch) => `${state}#${branch}`,
      tagOf: (state) => state,
      trace: (step, value) => { traced[step] = value; },
    };
    const ctx = initialContext({ data: input, co: context as BaseContextObject, execDeadline: null });
    super(Object.keys(variables).length > 0 ? { ...ctx, vars: variables } : ctx, env);
    this.traced = traced;
  }

  /** `$$` (with the variables in scope, which JSONPath reads through it). */
  override co(): ContextObject {
    return withVariables({ ...this.context }, visibleVariables(this.ctx));
  }

  override attempt<T>(fn: () => T): { ok: true; value: T } | { ok: false; fault: Fault } {
    const r = super.attempt(fn);
    if (!r.ok) this.lastFault = r.fault;
    return r;
  }
}
