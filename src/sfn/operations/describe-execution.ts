import { seconds, type ServiceContext } from '../../service/context.js';
import { requireExecution } from '../execution-lookup.js';
import { requestObject } from '../input.js';
import { InputReader } from '../../protocol/validate.js';

/**
 * The redrive members AWS's DescribeExecution carries. Executions are never redriven here, so the
 * count is 0; a FAILED, TIMED_OUT or ABORTED execution is REDRIVABLE as AWS documents, any other
 * NOT_REDRIVABLE with AWS's reason.
 */
function redrive(status: string): object {
  if (status === 'FAILED' || status === 'TIMED_OUT' || status === 'ABORTED') return { redriveCount: 0, redriveStatus: 'REDRIVABLE' };
  return { redriveCount: 0, redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: `Execution is ${status} and cannot be redriven` };
}

/** DescribeExecution: output only when SUCCEEDED; error and cause when the execution failed, timed out or was aborted. */
export async function describeExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const rec = await requireExecution(ctx, requestObject(input).executionArn);
  return {
    executionArn: rec.executionArn,
    stateMachineArn: rec.stateMachineArn,
    ...(rec.stateMachineVersionArn !== undefined ? { stateMachineVersionArn: rec.stateMachineVersionArn } : {}),
    ...(rec.stateMachineAliasArn !== undefined ? { stateMachineAliasArn: rec.stateMachineAliasArn } : {}),
    ...(rec.mapRunArn !== undefined ? { mapRunArn: rec.mapRunArn } : {}),
    name: rec.name,
    status: rec.status,
    startDate: seconds(rec.startDate),
    ...(rec.stopDate !== undefined ? { stopDate: seconds(rec.stopDate) } : {}),
    input: rec.input,
    inputDetails: { included: true },
    ...(rec.status === 'SUCCEEDED' ? { output: rec.output, outputDetails: { included: true } } : {}),
    ...(rec.error !== undefined ? { error: rec.error } : {}),
    ...(rec.cause !== undefined ? { cause: rec.cause } : {}),
    ...redrive(rec.status),
  };
}

/**
 * DescribeStateMachineForExecution: the definition and role the execution runs (its own copy: the
 * state machine's revision at its start, or the version it was started through) and that revision.
 */
export async function describeStateMachineForExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  r.str('includedData', { max: 16, oneOf: ['ALL_DATA', 'METADATA_ONLY'] });
  r.done();
  const rec = await requireExecution(ctx, body.executionArn);
  return {
    stateMachineArn: rec.stateMachineArn, name: rec.stateMachineName, definition: rec.definition, roleArn: rec.roleArn,
    // Records of executions started before the revision was kept: their start is the best bound.
    updateDate: seconds(rec.definitionDate ?? rec.startDate),
    ...(rec.revisionId !== undefined ? { revisionId: rec.revisionId } : {}),
  };
}
