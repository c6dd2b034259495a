import { randomUUID } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import type { ServiceContext } from '../../service/context.js';
import { expressExecutionArn } from '../arns.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import type { StartRequest } from '../operations/start-request.js';
import type { ExpressOutcome } from './express-host.js';

/** A started express execution: what it runs, and the promise of its end. */
export interface StartedExpress {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  /** epoch ms */
  startDate: number;
  input: string;
  done: Promise<ExpressOutcome>;
}

/**
 * Starts an EXPRESS execution on this node (ARN `…:express:<stateMachine>:<name>:<uuid>`, unique
 * even for a reused name: AWS does not check express names). Logged when its state machine's
 * loggingConfiguration asks for it.
 */
export async function startExpress(ctx: ServiceContext, req: StartRequest): Promise<StartedExpress> {
  if (!ctx.sfnExpress) throw new Fault('InternalFailure', 'Step Functions executions are not served by this node');
  const sm = req.target.stateMachine;
  const executionArn = expressExecutionArn(ctx, sm.name, req.name, randomUUID());
  const rec: SfnExecutionRecord = {
    executionArn, stateMachineArn: sm.arn, stateMachineName: sm.name, name: req.name, status: 'RUNNING',
    startDate: ctx.clock.now(), input: req.input, partition: -1, ...req.target.runs,
  };
  const { done } = await ctx.sfnExpress.start(rec, sm.loggingConfiguration);
  return { executionArn, stateMachineArn: rec.stateMachineVersionArn ?? sm.arn, name: req.name, startDate: rec.startDate, input: req.input, done };
}
