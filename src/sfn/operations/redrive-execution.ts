import { InputReader } from '../../protocol/validate.js';
import { parseArn } from '../arns.js';
import type { SfnRedrivePayload } from '../kind/sfn-redrive.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { executionPartition } from '../execution-lookup.js';

/** The model's ClientToken: 1–64 printable ASCII characters without spaces. */
const CLIENT_TOKEN = /^[!-~]+$/;

/**
 * RedriveExecution: a FAILED, TIMED_OUT or ABORTED execution runs again from the state it stopped in,
 * on its partition owner (sfn-redrive.ts). The same clientToken within 15 minutes answers the same
 * redriveDate (the AWS SDKs send a fresh one per call unless given).
 */
export async function redriveExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const arn = r.str('executionArn', { min: 1, max: 2048, required: true });
  const clientToken = r.str('clientToken', { min: 1, max: 64 });
  if (clientToken !== undefined && !CLIENT_TOKEN.test(clientToken)) r.problem('clientToken', clientToken, 'Member must satisfy regular expression pattern: [!-~]+');
  r.done();
  parseArn(arn, 'execution', 'executionArn');
  const p: SfnRedrivePayload = { executionArn: arn, ...(clientToken !== undefined ? { clientToken } : {}) };
  const out = await ctx.router.call(executionPartition(ctx, arn), 'sfnRedrive', p);
  return { redriveDate: seconds(out.redriveDate) };
}
