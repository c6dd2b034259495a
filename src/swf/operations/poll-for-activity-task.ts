import { activityByScheduled } from '../../../machines/swf/execution-state.js';
import { InputReader } from '../../protocol/validate.js';
import type { TaskMessage } from '../../matching/task-message.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';
import { pollMs } from '../../protocol/poll-hold.js';

export interface StartActivity { task: TaskMessage; identity?: string }

export async function pollForActivityTask(ctx: ServiceContext, input: unknown, signal?: AbortSignal): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const taskList = r.taskList('taskList', true)!;
  const identity = r.str('identity', { max: 256 });
  const wait = pollMs(r, ctx.pollHoldMs);
  r.done();
  await requireDomain(ctx, domain);
  const task = await ctx.queues.poll(domain, 'a', taskList.name, Date.now() + wait,
    (t) => ctx.router.call(t.partition, 'startActivity', { task: t, identity } satisfies StartActivity),
    signal);
  return task ?? { startedEventId: 0 };
}

/** Owner side: ActivityTaskStarted if the task is still waiting; null when it timed out or was canceled. */
export async function startActivityOnOwner(owner: PartitionOwner, a: StartActivity): Promise<object | null> {
  const { task } = a;
  const key = { domain: task.domain, workflowId: task.workflowId, runId: task.runId, partition: task.partition };
  const run = await owner.open(key);
  if (!run) return null;
  return run.serial(async () => {
    const act = activityByScheduled(run.state, task.scheduledEventId);
    const actor = run.actors.activities.get(task.scheduledEventId);
    if (!act || act.startedEventId !== null || actor?.getSnapshot().value !== 'scheduled') return null;
    const [started] = await run.commit((_s, b) => { b.add('ActivityTaskStarted', { identity: a.identity, scheduledEventId: task.scheduledEventId }); });
    const scheduled = (await run.log.get(task.scheduledEventId)).attrs;
    return {
      taskToken: owner.tokens.encodeTaskToken({ ...key, kind: 'a', scheduledEventId: task.scheduledEventId, startedEventId: started!.id }),
      activityId: act.activityId,
      startedEventId: started!.id,
      workflowExecution: { workflowId: key.workflowId, runId: key.runId },
      activityType: scheduled.activityType,
      input: scheduled.input,
    };
  });
}
