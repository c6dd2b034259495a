import { createHash } from 'node:crypto';
import { decode } from './codec.js';

/**
 * Which partition an API request is for, as a client can tell from the request alone: the engine
 * and the SDK share this file so both pick the same partition. A hint only: a request sent to the
 * wrong node (or to none) is still served, one owner call further on.
 */

/** Stable partition of an execution: hash(domain, workflowId) mod P. */
export function partitionOf(domain: string, workflowId: string, partitions: number): number {
  // Operations derive the partition while they read their input; a missing member is reported by
  // validation right after, so it must not throw here (the HTTP fuzz test found the 500).
  const h = createHash('sha1').update(domain ?? '').update('\u0000').update(workflowId ?? '').digest();
  return h.readUInt32BE(0) % partitions;
}

/** The domain Step Functions executions are hashed under (never a valid SWF domain name). */
export const SFN_DOMAIN = '~sfn';

/**
 * A task token is base64url of this many MAC bytes, then its msgpack fields (engine/task-token.ts):
 * HMAC-SHA256 truncated to 128 bits, unforgeable and short enough to keep tokens within AWS's lengths.
 */
export const TOKEN_MAC_BYTES = 16;

/**
 * The request a node answers with its partition count (`{ partitions }`) on `<prefix>.api.<this>`.
 * `~` never begins an AWS action name, so it cannot clash with one.
 */
export const PARTITIONS_ACTION = '~Partitions';

/** SWF actions that name their execution as `domain` and `workflowId`, or `domain` and `execution.workflowId`. */
const BY_WORKFLOW_ID = new Set(['StartWorkflowExecution', 'SignalWorkflowExecution', 'RequestCancelWorkflowExecution', 'TerminateWorkflowExecution']);
const BY_EXECUTION = new Set(['DescribeWorkflowExecution', 'GetWorkflowExecutionHistory']);
const BY_SWF_TOKEN = new Set(['RespondDecisionTaskCompleted', 'RespondActivityTaskCompleted', 'RespondActivityTaskFailed',
  'RespondActivityTaskCanceled', 'RecordActivityTaskHeartbeat']);
const BY_SFN_TOKEN = new Set(['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat']);
const BY_EXECUTION_ARN = new Set(['StopExecution', 'RedriveExecution']);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The msgpack fields of a task token, unchecked (only the engine can check its MAC), or undefined. */
function tokenFields(token: unknown): unknown[] | undefined {
  const t = str(token);
  if (!t || t.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(t)) return undefined;
  const raw = Buffer.from(t, 'base64url');
  if (raw.length <= TOKEN_MAC_BYTES) return undefined;
  try {
    const fields = decode(raw.subarray(TOKEN_MAC_BYTES));
    return Array.isArray(fields) ? fields : undefined;
  } catch {
    return undefined;
  }
}

/** `arn:aws:states:<r>:<a>:execution:<machine>:<name>` of a named start (`…:stateMachine:<machine>[:<version|alias>][#<test case>]`). */
function startedExecutionArn(stateMachineArn: unknown, name: unknown): string | undefined {
  const arn = str(stateMachineArn);
  const n = str(name);
  if (!arn || !n) return undefined;
  const parts = arn.split('#')[0]!.split(':');
  if (parts.length < 7 || parts[0] !== 'arn' || parts[5] !== 'stateMachine' || !parts[6]) return undefined;
  return `${parts.slice(0, 5).join(':')}:execution:${parts[6]}:${n}`;
}

/** The partition of an execution-scoped request among `partitions`, or undefined when the request does not tell. */
export function partitionHint(action: string, input: Record<string, unknown>, partitions: number): number | undefined {
  const domain = str(input.domain);
  if (BY_WORKFLOW_ID.has(action)) {
    const id = str(input.workflowId);
    return domain && id ? partitionOf(domain, id, partitions) : undefined;
  }
  if (BY_EXECUTION.has(action)) {
    const id = str((input.execution as { workflowId?: unknown } | undefined)?.workflowId);
    return domain && id ? partitionOf(domain, id, partitions) : undefined;
  }
  if (BY_SWF_TOKEN.has(action)) {
    const f = tokenFields(input.taskToken);
    return f && typeof f[1] === 'string' && typeof f[2] === 'string' ? partitionOf(f[1], f[2], partitions) : undefined;
  }
  if (BY_SFN_TOKEN.has(action)) {
    const f = tokenFields(input.taskToken);
    return f && Number.isInteger(f[2]) && (f[2] as number) >= 0 && (f[2] as number) < partitions ? f[2] as number : undefined;
  }
  if (BY_EXECUTION_ARN.has(action)) {
    const arn = str(input.executionArn);
    return arn ? partitionOf(SFN_DOMAIN, arn, partitions) : undefined;
  }
  if (action === 'StartExecution') {
    const arn = startedExecutionArn(input.stateMachineArn, input.name);
    return arn ? partitionOf(SFN_DOMAIN, arn, partitions) : undefined;
  }
  return undefined;
}
