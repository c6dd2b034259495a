import { randomUUID } from 'node:crypto';
import { Fault, fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import type { WorkflowTypeConfig } from '../../registry/records.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import { EventBatch } from '../kind/event-batch.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain, requireType, typeLabel } from '../domain-lookup.js';
import { CHILD_POLICIES } from '../decisions.js';
import { resolveRunSettings } from '../run-settings.js';

/** What the owner needs to start a run: everything resolved and validated. */
export interface StartRun {
  domain: string;
  workflowId: string;
  partition: number;
  attrs: Record<string, unknown>;
  /** A child run: its parent (also recorded in WorkflowExecutionStarted). */
  parent?: { workflowId: string; runId: string; initiatedEventId: number };
  /** Continue-as-new: the successor's runId (chosen by the closing run) and the run it replaces. */
  continues?: { runId: string; from: string };
}

export async function startWorkflowExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const workflowId = r.id('workflowId', true);
  const workflowType = r.type('workflowType', true);
  const taskList = r.taskList('taskList', false);
  const taskPriority = r.priority('taskPriority');
  const wfInput = r.data('input');
  const executionStartToCloseTimeout = r.duration('executionStartToCloseTimeout', { allowNone: false });
  const tagList = r.tags();
  const taskStartToCloseTimeout = r.duration('taskStartToCloseTimeout', { allowNone: true });
  const childPolicy = r.str('childPolicy', { max: 16, oneOf: CHILD_POLICIES });
  const lambdaRole = r.str('lambdaRole', { min: 1, max: 1224 });
  r.done();
  const dom = await requireDomain(ctx, domain);
  if (dom.value.status === 'DEPRECATED') throw fault.domainDeprecated(domain);
  const type = await requireType(ctx, 'workflow', domain, workflowType);
  if (type.value.status === 'DEPRECATED') throw new Fault('TypeDeprecatedFault', typeLabel('workflow', workflowType));
  const resolved = resolveRunSettings({ taskList, executionStartToCloseTimeout, taskStartToCloseTimeout, childPolicy, taskPriority, lambdaRole },
    type.value.config as WorkflowTypeConfig);
  if ('missing' in resolved) {
    throw new Fault('DefaultUndefinedFault', `No default value for ${resolved.missing}: set it on the call or register it on the workflow type`);
  }
  const partition = ctx.router.partitionOf(domain, workflowId);
  const run: StartRun = { domain, workflowId, partition, attrs: { input: wfInput, ...resolved.settings, workflowType, tagList } };
  return ctx.router.call(partition, 'start', run);
}

/** Owner side: reserve the workflowId, persist the first transition, bring the run to life. */
export async function startRunOnOwner(owner: PartitionOwner, run: StartRun): Promise<{ runId: string }> {
  const runId = run.continues?.runId ?? randomUUID().replaceAll('-', '');
  const at = owner.machines.clock.now();
  const rec = {
    runId, partition: run.partition, startedAt: at,
    parent: run.parent && { runId: run.parent.runId, initiatedEventId: run.parent.initiatedEventId },
  };
  if (run.parent) {
    // A retried child start (after a crash) finds its own run already there.
    const cur = await owner.openRun(run.domain, run.workflowId);
    if (cur?.parent?.runId === run.parent.runId && cur.parent.initiatedEventId === run.parent.initiatedEventId) return { runId: cur.runId };
  }
  const revision = run.continues
    ? await owner.handOver(run.domain, run.workflowId, run.continues.from, rec)
    : await owner.reserve(run.domain, run.workflowId, rec);
  if (revision === undefined) return { runId };
  const key = { domain: run.domain, workflowId: run.workflowId, runId, partition: run.partition };
  const batch = new EventBatch(1, at);
  batch.add('WorkflowExecutionStarted', {
    ...run.attrs,
    continuedExecutionRunId: run.continues?.from,
    parentWorkflowExecution: run.parent && { workflowId: run.parent.workflowId, runId: run.parent.runId },
    parentInitiatedEventId: run.parent?.initiatedEventId,
  });
  batch.add('DecisionTaskScheduled', {
    taskList: run.attrs.taskList, taskPriority: run.attrs.taskPriority, startToCloseTimeout: run.attrs.taskStartToCloseTimeout,
  });
  let seq: number;
  try {
    seq = await owner.store.append(owner.subject(key), runId, batch.events, 0, 'start');
  } catch (e) {
    await owner.release(run.domain, run.workflowId, revision);
    throw e;
  }
  await owner.adopt(key, batch.events, seq);
  return { runId };
}
