import { InputReader } from '../../protocol/validate.js';
import { parseArn } from '../arns.js';
import type { SfnStopPayload } from '../kind/sfn-owner-ops.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { executionPartition } from '../execution-lookup.js';
import { requestObject } from '../input.js';

/** StopExecution: the execution ends ABORTED (ExecutionAborted with the given error and cause). */
export async function stopExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const error = r.str('error', { max: 256 });
  const cause = r.str('cause', { max: 32_768 });
  r.done();
  const arn = body.executionArn as string;
  parseArn(arn, 'execution', 'executionArn');
  const p: SfnStopPayload = { executionArn: arn, error, cause };
  const out = await ctx.router.call(executionPartition(ctx, arn), 'sfnStop', p);
  return { stopDate: seconds(out.stopDate) };
}
