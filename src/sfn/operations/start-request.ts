import { randomUUID } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, payloadDepth, utf8Bytes } from '../compile/payload-limit.js';
import { validateSfnName } from '../arns.js';
import type { ServiceContext } from '../../service/context.js';
import { resolveStartTarget, type StartTarget } from './start-target.js';
import { requestObject } from '../input.js';

/** The wire limit of Step Functions payloads (the model's 262,144 characters); AWS's quota is the same number of UTF-8 bytes. */
export const MAX_SFN_PAYLOAD = MAX_PAYLOAD_BYTES;

/**
 * Why a payload (execution input, task output) cannot enter an execution: not JSON, over 256 KiB
 * in UTF-8, or nested past MAX_PAYLOAD_DEPTH; undefined when it can.
 */
export function payloadProblem(text: string): string | undefined {
  let v: unknown;
  try { v = JSON.parse(text); } catch { return 'must be JSON'; }
  if (utf8Bytes(text) > MAX_PAYLOAD_BYTES) return `exceeds the maximum size of ${MAX_PAYLOAD_BYTES} bytes (UTF-8)`;
  if (payloadDepth(v) > MAX_PAYLOAD_DEPTH) return `is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`;
  return undefined;
}

/** What StartExecution and StartSyncExecution read and check before anything runs. */
export interface StartRequest {
  name: string;
  input: string;
  target: StartTarget;
}

/**
 * The checks both start actions make, in AWS's order: members, name (a UUID when absent), the
 * state machine (or version, or alias), the input, a state machine being deleted. `read` reads the
 * action's own members into the same reader.
 */
export async function readStartRequest(ctx: ServiceContext, input: unknown, read?: (r: InputReader) => void): Promise<StartRequest> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const text = r.str('input', { max: MAX_SFN_PAYLOAD }) ?? '{}';
  r.str('traceHeader', { max: 256 });
  read?.(r);
  r.done();
  const name = body.name === undefined || body.name === null ? randomUUID() : validateSfnName(body.name, 'name');
  const target = await resolveStartTarget(ctx, body.stateMachineArn);
  const sm = target.stateMachine;
  const problem = payloadProblem(text);
  if (problem) throw new Fault('InvalidExecutionInput', `Invalid State Machine Execution Input: 'input ${problem}'`);
  if (sm.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine Is Being Deleted: '${sm.arn}'`);
  return { name, input: text, target };
}

