import type { MockHook } from '../integrations/integration.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import { parseArn } from '../arns.js';
import { mockedResult, type MockConfig } from './mock-config.js';

/** Where the hook reads an execution's test case (its record, kept in KV, so it survives a restart). */
export interface TestCaseRecords {
  get(stateMachineName: string, name: string): Promise<Pick<SfnExecutionRecord, 'executionArn' | 'stateMachineName' | 'mockTestCase'> | undefined>;
}

/** Executions whose test case a node remembers (the least recently asked go first). */
const MAX_CACHED = 10_000;

/**
 * The hook that answers Tasks from the mock configuration for executions started with
 * `<stateMachineArn>#<TestCaseName>`. The execution's test case is read from its record once and
 * cached per execution (a Task of an execution without one costs a map lookup after its first).
 */
export function createMockHook(config: MockConfig, records: TestCaseRecords): MockHook {
  const cache = new Map<string, { stateMachineName: string; testCase?: string }>();
  const testCaseOf = async (executionArn: string) => {
    const held = cache.get(executionArn);
    if (held) {
      cache.delete(executionArn);
      cache.set(executionArn, held);
      return held;
    }
    // An express execution has no record (and no test case): its Tasks run as written.
    if (executionArn.split(':')[5] !== 'execution') return undefined;
    const { stateMachineName, name } = parseArn(executionArn, 'execution', 'executionArn');
    const rec = await records.get(stateMachineName!, name);
    // No record (not yet visible, or gone): nothing to cache, the Task runs as written.
    if (!rec || rec.executionArn !== executionArn) return undefined;
    const got = { stateMachineName: rec.stateMachineName, ...(rec.mockTestCase !== undefined ? { testCase: rec.mockTestCase } : {}) };
    cache.set(executionArn, got);
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
    return got;
  };
  return async (m) => {
    const tc = await testCaseOf(m.executionArn);
    if (tc?.testCase === undefined) return undefined;
    return mockedResult(config, { stateMachineName: tc.stateMachineName, testCase: tc.testCase, stateName: m.stateName, attempt: m.attempt });
  };
}
