import { createHash } from 'node:crypto';
import { executionNameOf, parseArn } from '../arns.js';
import type { IntegrationDeps } from './integration.js';

/**
 * How deep child executions may nest: an execution started by a Task is one level below its parent,
 * and one started past this depth is refused. AWS documents no depth limit (its guard is the account's
 * quota of open executions); a bound is what keeps a state machine that starts itself (or a cycle of
 * them) from filling the node, and ten levels is far past any nesting seen in practice.
 */
export const MAX_CHILD_DEPTH = 10;

/** The input member AWS reads to link a child to the execution that started it (`$$.Execution.Id`). */
export const STARTED_BY = 'AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID';

// A name Step Functions allows keeps letters, digits and most punctuation; these are the characters it refuses.
const NOT_IN_NAMES = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f\ufffe\uffff\ud800-\udfff]/g;
const DERIVED = /\.c(\d{1,2})\.[0-9a-f]{20}$/;

/**
 * The name of the child a Task starts when its parameters give none: the same for every invocation of
 * one scheduling attempt (the host invokes again after a crash, and StartExecution with the same name
 * and input is then the same child), 78 characters at most, readable (the parent's and the state's
 * names in front) and carrying the child's depth for the recursion guard.
 */
export function childName(parentArn: string, stateName: string, taskKey: string, depth: number): string {
  // An Express parent too: it may start a child, only not wait for one (.sync is refused for it).
  const parent = executionNameOf(parentArn, 'executionArn');
  const clean = (s: string, max: number) => s.replace(NOT_IN_NAMES, '_').slice(0, max);
  const hash = createHash('sha256').update(`${parentArn}\n${taskKey}`).digest('hex').slice(0, 20);
  return `${clean(parent, 36)}.${clean(stateName, 16)}.c${depth}.${hash}`;
}

/** The depth a derived child name carries, undefined for any other name. */
export function depthInName(name: string): number | undefined {
  const m = DERIVED.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The execution that started `input`'s execution, when its input links it as AWS documents. */
function startedBy(input: unknown): string | undefined {
  if (typeof input !== 'string' || !input.includes(STARTED_BY)) return undefined;
  try {
    const v = (JSON.parse(input) as Record<string, unknown> | null)?.[STARTED_BY];
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How deep an execution is (0: started by a caller, not by a Task): read from its name when the
 * integration derived it, else by following the `AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID` links
 * of the inputs up (one DescribeExecution a level, never past MAX_CHILD_DEPTH + 1). An execution
 * that cannot be described (purged, malformed link) ends the chain.
 */
export async function depthOf(deps: Pick<IntegrationDeps, 'call'>, executionArn: string, signal?: AbortSignal): Promise<number> {
  let arn: string | undefined = executionArn;
  for (let climbed = 0; arn !== undefined && climbed <= MAX_CHILD_DEPTH; climbed += 1) {
    let name: string;
    try { name = parseArn(arn, 'execution', 'executionArn').name; } catch { return climbed; }
    const inName = depthInName(name);
    if (inName !== undefined) return climbed + inName;
    const d = await deps.call('DescribeExecution', { executionArn: arn }, signal).catch(() => undefined) as { input?: unknown } | undefined;
    const up = startedBy(d?.input);
    if (up === undefined) return climbed;
    arn = up;
  }
  return MAX_CHILD_DEPTH + 1;
}
