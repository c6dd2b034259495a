import { Fault } from '../protocol/faults.js';
import { parseArn } from './arns.js';
import type { ExecutionRecords, SfnExecutionRecord } from './kind/execution-records.js';
import { SFN_DOMAIN } from './kind/sfn-host.js';
import type { ServiceContext } from '../service/context.js';

/** The node's execution records (InternalFailure if this node runs no Step Functions host). */
export function executionRecords(ctx: ServiceContext): ExecutionRecords {
  if (!ctx.sfnExecutions) throw new Fault('InternalFailure', 'Step Functions executions are not served by this node');
  return ctx.sfnExecutions;
}

/** The partition that owns an execution. */
export const executionPartition = (ctx: ServiceContext, executionArn: string): number => ctx.router.partitionOf(SFN_DOMAIN, executionArn);

/** The execution an ARN names, or ExecutionDoesNotExist (InvalidArn for a malformed ARN). */
export async function requireExecution(ctx: ServiceContext, arn: unknown, member = 'executionArn'): Promise<SfnExecutionRecord> {
  const { name, stateMachineName } = parseArn(arn, 'execution', member);
  const rec = await executionRecords(ctx).get(stateMachineName!, name);
  if (!rec || rec.executionArn !== arn) throw new Fault('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(arn)}'`);
  return rec;
}
