import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import type { SfnTaskPayload } from '../kind/sfn-owner-ops.js';
import { decodeSfnTaskToken } from '../kind/sfn-task-token.js';
import type { ServiceContext } from '../../service/context.js';
import { MAX_SFN_PAYLOAD, payloadProblem } from './start-request.js';
import { requestObject } from '../input.js';

const MAX_TOKEN = 2048;

async function send(ctx: ServiceContext, token: string, p: Omit<SfnTaskPayload, 'ref'>): Promise<object> {
  const ref = decodeSfnTaskToken(ctx.tokens, token);
  if (ref.partition < 0 || ref.partition >= ctx.router.partitions) throw new Fault('InvalidToken', 'Invalid Token');
  return ctx.router.call(ref.partition, 'sfnTask', { ...p, ref } satisfies SfnTaskPayload);
}

/** SendTaskSuccess: output must be JSON of at most 256 KiB in UTF-8 (InvalidOutput). */
export async function sendTaskSuccess(ctx: ServiceContext, input: unknown): Promise<object> {
  requestObject(input);
  const r = InputReader.of(input);
  const token = r.str('taskToken', { min: 1, max: MAX_TOKEN, required: true });
  const output = r.str('output', { max: MAX_SFN_PAYLOAD, required: true });
  r.done();
  // Refused here, before the owner sees it: the task stays open for a correct answer.
  const problem = payloadProblem(output);
  if (problem) throw new Fault('InvalidOutput', `Invalid Output: 'output ${problem}'`);
  return send(ctx, token, { kind: 'success', output });
}

/** SendTaskFailure: error ≤ 256, cause ≤ 32,768 characters. */
export async function sendTaskFailure(ctx: ServiceContext, input: unknown): Promise<object> {
  requestObject(input);
  const r = InputReader.of(input);
  const token = r.str('taskToken', { min: 1, max: MAX_TOKEN, required: true });
  const error = r.str('error', { max: 256 });
  const cause = r.str('cause', { max: 32_768 });
  r.done();
  return send(ctx, token, { kind: 'failure', error, cause });
}

/** SendTaskHeartbeat: restarts the task's heartbeat window; writes no history event. */
export async function sendTaskHeartbeat(ctx: ServiceContext, input: unknown): Promise<object> {
  requestObject(input);
  const r = InputReader.of(input);
  const token = r.str('taskToken', { min: 1, max: MAX_TOKEN, required: true });
  r.done();
  return send(ctx, token, { kind: 'heartbeat' });
}
