import { readDecisions, type Decision } from '../decisions.js';
import { Fault } from '../../protocol/faults.js';
import type { TaskRef } from '../../engine/task-token.js';
import { InputReader } from '../../protocol/validate.js';
import { randomUUID } from 'node:crypto';
import { activityTypeKey, applyDecisions, continuedType, type DecisionTypes } from '../kind/decide.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';

interface CompleteDecision {
  ref: TaskRef;
  partition: number;
  decisions: Decision[];
  executionContext?: string;
  taskList?: { name: string };
  taskListScheduleToStartTimeout?: string;
}

export async function respondDecisionTaskCompleted(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const token = r.str('taskToken', { min: 1, max: 1024, required: true });
  const executionContext = r.data('executionContext');
  const taskList = r.taskList('taskList', false);
  const taskListScheduleToStartTimeout = r.duration('taskListScheduleToStartTimeout', { allowNone: true });
  const decisions = readDecisions(r);
  const ref = ctx.tokens.decodeTaskToken(token, 'd');
  const partition = ctx.router.partitionOf(ref.domain, ref.workflowId);
  return ctx.router.call(partition, 'completeDecision', { ref, partition, decisions, executionContext, taskList, taskListScheduleToStartTimeout } satisfies CompleteDecision);
}

export const unknownDecisionTask = (ref: TaskRef) => new Fault('UnknownResourceFault', `Unknown decision task, scheduledEventId = ${ref.scheduledEventId}`);

/** Owner side: DecisionTaskCompleted, then each decision's event, in one transition. */
export async function completeDecisionOnOwner(owner: PartitionOwner, a: CompleteDecision): Promise<object> {
  const { ref } = a;
  const run = await owner.open({ ...ref, partition: a.partition });
  if (!run) throw unknownDecisionTask(ref);
  // Type records are read before the run's turn (the registry is cached), so the batch applies at once.
  const types: DecisionTypes = { activity: {}, workflow: {} };
  for (const d of a.decisions) {
    const [kind, t] = d.type === 'ScheduleActivityTask' ? ['activity', d.attrs.activityType] as const
      : d.type === 'StartChildWorkflowExecution' ? ['workflow', d.attrs.workflowType] as const
        : d.type === 'ContinueAsNewWorkflowExecution' ? ['workflow', continuedType(run.state, d.attrs.workflowTypeVersion)] as const
          : [undefined, undefined];
    if (!kind || activityTypeKey(t) in types[kind]) continue;
    types[kind][activityTypeKey(t)] = (await owner.registry.type(kind, ref.domain, t.name, t.version)).value;
  }
  // AWS: a deprecated domain "cannot be used to create new workflow executions", even of a type
  // undeprecated since: children and continue-as-new fail as with a deprecated type.
  if (Object.keys(types.workflow).length > 0 && (await owner.registry.domain(ref.domain)).value?.status === 'DEPRECATED') {
    for (const [k, t] of Object.entries(types.workflow)) if (t) types.workflow[k] = { ...t, status: 'DEPRECATED' };
  }
  return run.serial(async () => {
    const d = run.state.decision;
    if (!d || d.scheduledEventId !== ref.scheduledEventId || d.startedEventId !== ref.startedEventId
      || run.actors.decision?.getSnapshot().value !== 'started') throw unknownDecisionTask(ref);
    await run.commit((s, b) => {
      const unhandled = s.needsDecision;
      const dtc = b.add('DecisionTaskCompleted', {
        scheduledEventId: ref.scheduledEventId, startedEventId: ref.startedEventId,
        executionContext: a.executionContext, taskList: a.taskList, taskListScheduleToStartTimeout: a.taskListScheduleToStartTimeout,
      });
      applyDecisions(s, b, dtc, a.decisions, types, unhandled, () => randomUUID().replaceAll('-', ''));
    });
    return {};
  });
}
