import { randomUUID } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import { executionArn, validateSfnName } from '../arns.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { executionPartition, executionRecords } from '../execution-lookup.js';
import { startExpress } from '../express/start-express.js';
import { readStartRequest } from './start-request.js';

/**
 * StartExecution: name optional (a UUID), input JSON (default "{}"); same name and input while
 * running is idempotent. On an EXPRESS state machine it starts an express execution in this node's
 * memory and answers at once (AWS: asynchronous, at most once, no name uniqueness).
 */
export async function startExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const req = await readStartRequest(ctx, input);
  if (req.target.stateMachine.type === 'EXPRESS') {
    const { executionArn, startDate } = await startExpress(ctx, req);
    return { executionArn, startDate: seconds(startDate) };
  }
  executionRecords(ctx);
  const sm = req.target.stateMachine;
  const arn = executionArn(ctx, sm.name, req.name);
  const record: SfnExecutionRecord = {
    executionArn: arn, stateMachineArn: sm.arn, stateMachineName: sm.name, name: req.name, status: 'RUNNING',
    startDate: ctx.clock.now(), input: req.input, partition: executionPartition(ctx, arn), ...req.target.runs,
  };
  const out = await ctx.router.call(record.partition, 'sfnStart', { record });
  return { executionArn: out.executionArn, startDate: seconds(out.startDate) };
}
