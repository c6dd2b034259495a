import { seconds, type ServiceContext } from './context.js';
import { requireExecution } from './sfn-execution-lookup.js';
import { requestObject } from './sfn-input.js';

/** DescribeExecution: output only when SUCCEEDED; error and cause when the execution failed, timed out or was aborted. */
export async function describeExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const rec = await requireExecution(ctx, requestObject(input).executionArn);
  return {
    executionArn: rec.executionArn,
    stateMachineArn: rec.stateMachineArn,
    name: rec.name,
    status: rec.status,
    startDate: seconds(rec.startDate),
    ...(rec.stopDate !== undefined ? { stopDate: seconds(rec.stopDate) } : {}),
    input: rec.input,
    inputDetails: { included: true },
    ...(rec.status === 'SUCCEEDED' ? { output: rec.output, outputDetails: { included: true } } : {}),
    ...(rec.error !== undefined ? { error: rec.error } : {}),
    ...(rec.cause !== undefined ? { cause: rec.cause } : {}),
  };
}
