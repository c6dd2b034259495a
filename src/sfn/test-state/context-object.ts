import { randomUUID } from 'node:crypto';
import { stateMachineArn, type ArnContext } from '../arns.js';
import type { ContextObject, TaskState } from '../asl/types.js';
import type { TestStateRequest } from './request.js';
import type { StateUnderTest } from './definition.js';

/**
 * `$$` of the state under test: the request's `context` as given, else AWS's default one, an Express
 * execution of a state machine that does not exist (`…:express:<machine>:<execution>`), entered now;
 * with a mock `State.RetryCount` is the retrier count under test; a `.waitForTaskToken` Task has
 * a `Task.Token` (no task waits for it); inside a Map, the first item (index 0, the input).
 */
export function testContextObject(arns: ArnContext, req: TestStateRequest, state: StateUnderTest, now: number): ContextObject {
  if (req.context !== undefined) return req.context as unknown as ContextObject;
  const machine = randomUUID();
  const execution = randomUUID();
  const smArn = stateMachineArn(arns, machine);
  const at = new Date(now).toISOString();
  const co = {
    Execution: {
      Id: `${smArn.slice(0, smArn.lastIndexOf(':stateMachine:'))}:express:${machine}:${execution}`,
      Input: req.input, Name: execution, RoleArn: req.roleArn ?? null, StartTime: at,
    },
    StateMachine: { Id: smArn, Name: machine },
    State: { Name: state.name, EnteredTime: at, ...(req.mock ? { RetryCount: req.config.retrierRetryCount ?? 0 } : {}) },
    ...(state.def.Type === 'Task' && (state.def as TaskState).Resource.endsWith('.waitForTaskToken') ? { Task: { Token: randomUUID() } } : {}),
    ...(state.inMap ? { Map: { Item: { Index: 0, Value: req.input } } } : {}),
  };
  return co as unknown as ContextObject;
}
