import { InputReader } from '../../protocol/validate.js';
import type { PartitionOwner, RunView } from '../kind/partition-owner.js';
import type { RunKey } from '../kind/execution.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';

/** Reads `{domain, execution}` and finds the run's partition. */
export async function readRunKey(ctx: ServiceContext, input: unknown): Promise<{ key: RunKey; r: InputReader }> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const execution = r.execution('execution', true)!;
  return { key: { domain, ...execution, partition: ctx.router.partitionOf(domain, execution?.workflowId ?? '') }, r };
}

export async function describeWorkflowExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const { key, r } = await readRunKey(ctx, input);
  r.done();
  await requireDomain(ctx, key.domain);
  return ctx.router.call(key.partition, 'describe', key);
}

export function executionInfo(v: RunView): Record<string, unknown> {
  const s = v.state;
  return {
    execution: { workflowId: v.key.workflowId, runId: v.key.runId },
    workflowType: s.started.workflowType,
    startTimestamp: seconds(s.startedAt),
    closeTimestamp: s.closedAt === null ? undefined : seconds(s.closedAt),
    executionStatus: s.closeStatus ? 'CLOSED' : 'OPEN',
    closeStatus: s.closeStatus ?? undefined,
    tagList: s.started.tagList,
    cancelRequested: s.cancelRequested,
    parent: s.started.parentWorkflowExecution,
  };
}

/** Owner side: everything comes from the fold of the run's history. */
export async function describeOnOwner(owner: PartitionOwner, key: RunKey): Promise<object> {
  const v = await owner.view(key);
  const s = v.state;
  const open = s.closeStatus === null;
  return {
    executionInfo: executionInfo(v),
    executionConfiguration: {
      taskStartToCloseTimeout: s.started.taskStartToCloseTimeout,
      executionStartToCloseTimeout: s.started.executionStartToCloseTimeout,
      taskList: s.started.taskList,
      taskPriority: s.started.taskPriority,
      childPolicy: s.started.childPolicy,
      lambdaRole: s.started.lambdaRole,
    },
    openCounts: {
      openActivityTasks: open ? Object.keys(s.activities).length : 0,
      openDecisionTasks: open && s.decision ? 1 : 0,
      openTimers: open ? Object.keys(s.timers).length : 0,
      openChildWorkflowExecutions: open ? Object.keys(s.children).length : 0,
      openLambdaFunctions: 0,
    },
    latestActivityTaskTimestamp: s.latestActivityTaskTimestamp === null ? undefined : seconds(s.latestActivityTaskTimestamp),
    latestExecutionContext: s.latestExecutionContext ?? undefined,
  };
}
