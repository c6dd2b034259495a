import { InputReader } from '../../protocol/validate.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';
import { appendToTarget, readRunTarget, type RunTarget } from '../run-target.js';

export interface CancelRun extends RunTarget {
  external?: { workflowExecution: { workflowId: string; runId: string }; initiatedEventId: number };
  /** CHILD_POLICY_APPLIED when a parent's REQUEST_CANCEL child policy sent it. */
  cause?: string;
}

export async function requestCancelWorkflowExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const target = readRunTarget(ctx, r);
  r.done();
  await requireDomain(ctx, target.domain);
  await ctx.router.call(target.partition, 'requestCancel', target satisfies CancelRun);
  return {};
}

/** Owner side: WorkflowExecutionCancelRequested (and a decision task); the decider decides what to do. */
export async function requestCancelOnOwner(owner: PartitionOwner, a: CancelRun): Promise<{ runId: string }> {
  const run = await appendToTarget(owner, a, () => (_s, b) => {
    b.add('WorkflowExecutionCancelRequested', {
      externalWorkflowExecution: a.external?.workflowExecution, externalInitiatedEventId: a.external?.initiatedEventId, cause: a.cause,
    });
  });
  return { runId: run.key.runId };
}
