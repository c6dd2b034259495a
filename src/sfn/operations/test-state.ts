import type { ServiceContext } from '../../service/context.js';
import { testStateAnswer } from '../test-state/answer.js';
import { testContextObject } from '../test-state/context-object.js';
import { stateUnderTest } from '../test-state/definition.js';
import { readTestStateRequest } from '../test-state/request.js';
import { checkTestedState } from '../test-state/rules.js';
import { runState, type Answer } from '../test-state/run-state.js';
import { invokeIntegration } from '../test-state/invoke.js';
import type { TaskState } from '../asl/types.js';
import { TestStep } from '../test-state/test-step.js';

/**
 * TestState: one state run in isolation, with the compiled states' own logic; nothing is recorded
 * and no execution starts. The definition is one state, or with `stateName` a whole state machine holding it;
 * a Task, Map or Parallel takes its result (or error) from `mock`, or a Task without one invokes
 * its request-response integration on this node; `context` is `$$`, `variables`
 * the variables in scope, `stateConfiguration.retrierRetryCount` the retries already made. The
 * answer: status (SUCCEEDED, FAILED, RETRIABLE, CAUGHT_ERROR), output and nextState, or error and
 * cause; DEBUG and TRACE add the inspection data (each data-flow step, the variables, the handler).
 */
export async function testState(ctx: ServiceContext, input: unknown): Promise<object> {
  const req = readTestStateRequest(input);
  const state = await stateUnderTest(req.definition, req.stateName);
  checkTestedState(req, state, ctx.sfnIntegrations);
  // The state runs at one instant (its retry backoff is measured from it).
  const now = ctx.clock.now();
  const co = testContextObject(ctx, req, state, now);
  const step = new TestStep(state.name, state.def, req.input, req.variables, co, { now: () => now });
  const mock = req.mock;
  const answer: Answer = mock ? () => mock : (parameters) => invokeIntegration(ctx.sfnIntegrations!, state.def as TaskState, state.name, co.Execution.Id, parameters);
  const map = await runState(step, state.name, state.def, answer, req.config.retrierRetryCount ?? 0);
  return testStateAnswer(step, state.def, req.input, req.level, map);
}
