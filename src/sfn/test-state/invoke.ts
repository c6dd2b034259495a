import { randomUUID } from 'node:crypto';
import type { TaskState } from '../asl/types.js';
import type { IntegrationRegistry } from '../integrations/registry.js';
import type { TestMock } from './request.js';

/** AWS: TestState runs for up to five minutes; a state that takes longer fails with States.Timeout. */
export const TEST_STATE_TIMEOUT_MS = 5 * 60_000;

/**
 * A Task tested without a mock: its request-response integration invoked once with the state's
 * parameters (rules.ts allowed only a Resource this node serves), its answer taken as a mock's.
 */
export async function invokeIntegration(registry: IntegrationRegistry, def: TaskState, stateName: string, executionArn: string, parameters: unknown): Promise<TestMock> {
  const served = registry.resolve(def.Resource)!;
  const signal = AbortSignal.timeout(TEST_STATE_TIMEOUT_MS);
  const r = await served.integration.invoke({
    resourceArn: def.Resource, service: served.service, parameters, executionArn, stateName,
    taskKey: `test-state#${randomUUID()}`, deadline: Date.now() + TEST_STATE_TIMEOUT_MS, signal,
  });
  if (signal.aborted) return { errorOutput: { error: 'States.Timeout', cause: '' } };
  return r.ok ? { result: r.output } : { errorOutput: { error: r.error, cause: r.cause } };
}
