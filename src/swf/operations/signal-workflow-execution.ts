import { InputReader } from '../../protocol/validate.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';
import { appendToTarget, readRunTarget, type RunTarget } from '../run-target.js';

export interface SignalRun extends RunTarget {
  signalName: string;
  input?: string;
  /** Set when another run's SignalExternalWorkflowExecution decision sent it. */
  external?: { workflowExecution: { workflowId: string; runId: string }; initiatedEventId: number };
}

export async function signalWorkflowExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const target = readRunTarget(ctx, r);
  const signalName = r.id('signalName', true);
  const data = r.data('input');
  r.done();
  await requireDomain(ctx, target.domain);
  await ctx.router.call(target.partition, 'signal', { ...target, signalName, input: data } satisfies SignalRun);
  return {};
}

/** Owner side: WorkflowExecutionSignaled (and a decision task) on the open run. */
export async function signalOnOwner(owner: PartitionOwner, a: SignalRun): Promise<{ runId: string }> {
  const run = await appendToTarget(owner, a, () => (_s, b) => {
    b.add('WorkflowExecutionSignaled', {
      signalName: a.signalName, input: a.input,
      externalWorkflowExecution: a.external?.workflowExecution, externalInitiatedEventId: a.external?.initiatedEventId,
    });
  });
  return { runId: run.key.runId };
}
