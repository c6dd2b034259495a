import { CHILD_POLICIES } from '../decisions.js';
import { InputReader } from '../../protocol/validate.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';
import { appendToTarget, readRunTarget, type RunTarget } from '../run-target.js';

export interface TerminateRun extends RunTarget {
  reason?: string;
  details?: string;
  childPolicy?: string;
  cause?: 'OPERATOR_INITIATED' | 'CHILD_POLICY_APPLIED' | 'EVENT_LIMIT_EXCEEDED';
}

export async function terminateWorkflowExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const target = readRunTarget(ctx, r);
  const reason = r.str('reason', { max: 256 });
  const details = r.data('details');
  const childPolicy = r.str('childPolicy', { max: 16, oneOf: CHILD_POLICIES });
  r.done();
  await requireDomain(ctx, target.domain);
  await ctx.router.call(target.partition, 'terminate', { ...target, reason, details, childPolicy } satisfies TerminateRun);
  return {};
}

/** Owner side: WorkflowExecutionTerminated closes the run; its child policy is applied after. */
export async function terminateOnOwner(owner: PartitionOwner, a: TerminateRun): Promise<{ runId: string }> {
  const run = await appendToTarget(owner, a, () => (s, b) => {
    b.add('WorkflowExecutionTerminated', {
      reason: a.reason, details: a.details, childPolicy: a.childPolicy ?? s.started.childPolicy, cause: a.cause ?? 'OPERATOR_INITIATED',
    });
  });
  return { runId: run.key.runId };
}
