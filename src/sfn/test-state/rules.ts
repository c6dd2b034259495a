import { Fault } from '../../protocol/faults.js';
import type { ParallelState, TaskState } from '../asl/types.js';
import type { IntegrationRegistry } from '../integrations/registry.js';
import type { StateUnderTest } from './definition.js';
import type { TestStateRequest } from './request.js';

/** AWS's words for a Map or Parallel state tested without a mock (the same for both). */
const FLOW_NEEDS_MOCK = 'TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]';

/** Is `resource` an activity ARN (`arn:<partition>:states:<region>:<account>:activity:<name>`)? */
export function isActivityResource(resource: string): boolean {
  return /^arn:[^:]+:states:[^:]*:[^:]*:activity:/.test(resource);
}

/**
 * What AWS refuses in a request once the state is known: a mock for a state that does no work, a
 * Map or Parallel without one, a mocked Map or Parallel result of the wrong shape, a Task without a
 * mock and without a role, and without a mock (as AWS) an activity Task or a `.sync` or
 * `.waitForTaskToken` one; a service this node does not serve cannot be invoked either.
 */
export function checkTestedState(req: TestStateRequest, state: StateUnderTest, integrations: IntegrationRegistry | undefined): void {
  const { def } = state;
  const mock = req.mock;
  if (mock && def.Type !== 'Task' && def.Type !== 'Map' && def.Type !== 'Parallel') {
    throw new Fault('ValidationException', `State type '${def.Type}' is not supported when a mock is specified`);
  }
  if (!mock && (def.Type === 'Map' || def.Type === 'Parallel')) throw new Fault('InvalidDefinition', FLOW_NEEDS_MOCK);
  if (mock?.result !== undefined && (def.Type === 'Map' || def.Type === 'Parallel')) {
    if (!Array.isArray(mock.result)) throw new Fault('ValidationException', 'Mocked result must be an array.');
    if (def.Type === 'Parallel' && mock.result.length !== (def as ParallelState).Branches.length) {
      throw new Fault('ValidationException', 'Mocked result must contain the same number of items as number of Parallel branches.');
    }
  }
  if (def.Type === 'Task' && !mock) {
    if (req.roleArn === undefined) throw new Fault('ValidationException', 'RoleArn must be specified when testing a Task state');
    const resource = (def as TaskState).Resource;
    if (isActivityResource(resource)) {
      throw new Fault('ValidationException', 'TestState API does not support Activity tasks unless a mock is specified.');
    }
    const served = integrations?.resolve(resource);
    if (!served) throw new Fault('ValidationException', `The resource '${resource}' is not served by this engine: specify a mock to test the state.`);
    if (served.service.pattern !== 'request') {
      throw new Fault('ValidationException', 'TestState only supports .sync or .waitForTaskToken service integration patterns when a mock is specified.');
    }
  }
}
