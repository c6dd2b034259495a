import { fault } from '../protocol/faults.js';
import type { InputReader } from '../protocol/validate.js';
import type { Execution } from './kind/execution.js';
import type { PartitionOwner } from './kind/partition-owner.js';
import type { ServiceContext } from '../service/context.js';

/** An execution named by workflowId and an optional runId (the open run when omitted). */
export interface RunTarget {
  domain: string;
  workflowId: string;
  runId?: string;
  partition: number;
}

export function readRunTarget(ctx: ServiceContext, r: InputReader): RunTarget {
  const domain = r.id('domain', true);
  const workflowId = r.id('workflowId', true);
  const runId = r.str('runId', { min: 1, max: 64 });
  return { domain, workflowId, runId, partition: ctx.router.partitionOf(domain, workflowId ?? '') };
}

/** Owner side: the open run a target names; UnknownResourceFault when it is closed or unknown. */
export async function openTarget(owner: PartitionOwner, t: RunTarget): Promise<Execution> {
  const runId = t.runId ?? (await owner.openRun(t.domain, t.workflowId))?.runId;
  const run = runId === undefined ? undefined : await owner.open({ domain: t.domain, workflowId: t.workflowId, runId, partition: t.partition });
  if (!run) throw fault.unknownExecution(t.workflowId, runId);
  return run;
}

/** Appends one event to the open run a target names, in its turn; UnknownResourceFault if it closed meanwhile. */
export async function appendToTarget(owner: PartitionOwner, t: RunTarget,
  build: (run: Execution) => Parameters<Execution['commit']>[0]): Promise<Execution> {
  const run = await openTarget(owner, t);
  await run.serial(async () => {
    if (run.isClosed) throw fault.unknownExecution(t.workflowId, run.key.runId);
    await run.commit(build(run));
  });
  return run;
}
