import { randomUUID } from 'node:crypto';
import { Fault } from '../domain/faults.js';
import { InputReader } from '../domain/validate.js';
import { executionArn, validateSfnName } from '../sfn/arns.js';
import type { SfnExecutionRecord } from '../sfn/runtime/execution-records.js';
import { seconds, type ServiceContext } from './context.js';
import { executionPartition, executionRecords } from './sfn-execution-lookup.js';
import { requireStateMachine } from './sfn-lookup.js';
import { requestObject } from './sfn-input.js';

/** Step Functions payloads (input, output): at most 256 KiB. */
export const MAX_SFN_PAYLOAD = 262_144;

/** True when `text` is one JSON value. */
export function isJson(text: string): boolean {
  try { JSON.parse(text); return true; } catch { return false; }
}

/** StartExecution: name optional (a UUID), input JSON (default "{}"); same name and input while running is idempotent. */
export async function startExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const text = r.str('input', { max: MAX_SFN_PAYLOAD }) ?? '{}';
  r.str('traceHeader', { max: 256 });
  r.done();
  executionRecords(ctx);
  const name = body.name === undefined || body.name === null ? randomUUID() : validateSfnName(body.name, 'name');
  const sm = (await requireStateMachine(ctx, body.stateMachineArn)).value;
  if (!isJson(text)) throw new Fault('InvalidExecutionInput', `Invalid State Machine Execution Input: 'input must be JSON'`);
  if (sm.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine Is Being Deleted: '${sm.arn}'`);
  const arn = executionArn(ctx, sm.name, name);
  const record: SfnExecutionRecord = {
    executionArn: arn, stateMachineArn: sm.arn, stateMachineName: sm.name, name, status: 'RUNNING',
    startDate: ctx.clock.now(), input: text, partition: executionPartition(ctx, arn), definition: sm.definition, roleArn: sm.roleArn,
  };
  const out = await ctx.router.call<{ executionArn: string; startDate: number }>(record.partition, 'sfnStart', { record });
  return { executionArn: out.executionArn, startDate: seconds(out.startDate) };
}
