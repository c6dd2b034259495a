import { randomUUID } from 'node:crypto';
import { Fault } from '../domain/faults.js';
import { InputReader } from '../domain/validate.js';
import type { WorkflowTypeConfig } from '../registry/records.js';
import type { PartitionOwner } from '../runtime/partition-owner.js';
import { EventBatch } from '../runtime/event-batch.js';
import type { ServiceContext } from './context.js';
import { requireDomain, requireType, typeLabel } from './domain-lookup.js';
import { CHILD_POLICIES, readPriority } from './register-type.js';

/** What the owner needs to start a run: everything resolved and validated. */
export interface StartRun {
  domain: string;
  workflowId: string;
  partition: number;
  attrs: Record<string, unknown>;
}

export async function startWorkflowExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const workflowId = r.id('workflowId', true);
  const workflowType = r.type('workflowType', true);
  const taskList = r.taskList('taskList', false);
  const taskPriority = readPriority(r, 'taskPriority');
  const wfInput = r.data('input');
  const executionStartToCloseTimeout = r.duration('executionStartToCloseTimeout', { allowNone: false });
  const tagList = r.list('tagList', { max: 5 }, (_t, item) => {
    if (typeof item !== 'string') throw new Fault('SerializationException', 'tagList members must be strings');
    if (item.length > 256) r.problem('tagList', item, 'Member must have length less than or equal to 256');
    return item;
  });
  const taskStartToCloseTimeout = r.duration('taskStartToCloseTimeout', { allowNone: true });
  const childPolicy = r.str('childPolicy', { max: 16, oneOf: CHILD_POLICIES });
  const lambdaRole = r.str('lambdaRole', { min: 1, max: 1224 });
  r.done();
  const dom = await requireDomain(ctx, domain);
  if (dom.value.status === 'DEPRECATED') throw new Fault('DomainDeprecatedFault', `Domain is deprecated: ${domain}`);
  const type = await requireType(ctx, 'workflow', domain, workflowType);
  if (type.value.status === 'DEPRECATED') throw new Fault('TypeDeprecatedFault', `Type is deprecated: ${typeLabel('workflow', workflowType)}`);
  const d = type.value.config as WorkflowTypeConfig;
  const resolved = {
    taskList: taskList ?? d.defaultTaskList,
    executionStartToCloseTimeout: executionStartToCloseTimeout ?? d.defaultExecutionStartToCloseTimeout,
    taskStartToCloseTimeout: taskStartToCloseTimeout ?? d.defaultTaskStartToCloseTimeout,
    childPolicy: childPolicy ?? d.defaultChildPolicy,
  };
  for (const [field, value] of Object.entries(resolved)) {
    if (value === undefined) throw new Fault('DefaultUndefinedFault', `No default value for ${field}: set it on the call or register it on the workflow type`);
  }
  const partition = ctx.router.partitionOf(domain, workflowId);
  const run: StartRun = {
    domain, workflowId, partition,
    attrs: {
      input: wfInput, ...resolved, taskPriority: taskPriority ?? d.defaultTaskPriority ?? '0',
      workflowType, tagList, lambdaRole: lambdaRole ?? d.defaultLambdaRole,
    },
  };
  return ctx.router.call<{ runId: string }>(partition, 'start', run);
}

/** Owner side: reserve the workflowId, persist the first transition, bring the run to life. */
export async function startRunOnOwner(owner: PartitionOwner, run: StartRun): Promise<{ runId: string }> {
  const runId = randomUUID().replaceAll('-', '');
  const at = owner.machines.clock.now();
  const revision = await owner.reserve(run.domain, run.workflowId, { runId, partition: run.partition, startedAt: at });
  const key = { domain: run.domain, workflowId: run.workflowId, runId, partition: run.partition };
  const batch = new EventBatch(1, at);
  batch.add('WorkflowExecutionStarted', run.attrs);
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
