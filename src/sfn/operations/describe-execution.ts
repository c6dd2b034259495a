import { seconds, type ServiceContext } from '../../service/context.js';
import { requireExecution } from '../execution-lookup.js';
import { requestObject } from '../input.js';
import { InputReader } from '../../protocol/validate.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import { notRedrivable } from '../kind/sfn-redrive.js';

/**
 * The redrive members AWS's DescribeExecution carries: the count, the last redrive's date, and
 * whether RedriveExecution would take the execution now (NOT_REDRIVABLE with AWS's reason).
 */
function redrive(rec: SfnExecutionRecord, now: number): object {
  const counted = { redriveCount: rec.redriveCount ?? 0, ...(rec.redriveDate !== undefined ? { redriveDate: seconds(rec.redriveDate) } : {}) };
  const reason = notRedrivable(rec, now);
  return reason === undefined ? { ...counted, redriveStatus: 'REDRIVABLE' } : { ...counted, redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: reason };
}

/**
 * DescribeExecution: output only when SUCCEEDED; error and cause when the execution failed or was
 * aborted. A TIMED_OUT execution has neither on AWS (its ExecutionTimedOut event keeps them).
 */
export async function describeExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const rec = await requireExecution(ctx, requestObject(input).executionArn);
  const failure = rec.status !== 'TIMED_OUT';
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
    ...(failure && rec.error !== undefined ? { error: rec.error } : {}),
    ...(failure && rec.cause !== undefined ? { cause: rec.cause } : {}),
    ...redrive(rec, ctx.clock.now()),
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
