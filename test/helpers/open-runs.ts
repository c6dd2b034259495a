import type { ActorFlowClient } from '../../src/sdk/client.js';
import { uniqueDomain } from './engine.js';

/**
 * A fresh domain with `count` open workflow executions that stay open (nobody polls their task
 * list; an hour to run): history for a recovery to rebuild. Returns the domain.
 */
export async function startOpenRuns(client: ActorFlowClient, count: number, label = 'open'): Promise<string> {
  const domain = uniqueDomain(label);
  await client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
  const type = { name: 'StaysOpen', version: '1' };
  await client.call('RegisterWorkflowType', {
    domain, ...type, defaultTaskList: { name: 'nobody' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '60',
  });
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => client.call('StartWorkflowExecution', { domain, workflowId: `w-${i + j}`, workflowType: type })));
  }
  return domain;
}
