import { activityByScheduled } from '../../../machines/swf/execution-state.js';
import { Fault } from '../../protocol/faults.js';
import type { TaskRef } from '../../engine/task-token.js';
import { InputReader } from '../../protocol/validate.js';
import type { Execution } from '../kind/execution.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';

type Outcome = 'ActivityTaskCompleted' | 'ActivityTaskFailed' | 'ActivityTaskCanceled' | 'Heartbeat';
interface ActivityResponse { ref: TaskRef; partition: number; outcome: Outcome; attrs: Record<string, unknown> }

const unknownActivityTask = (ref: TaskRef) => new Fault('UnknownResourceFault', `Unknown activity, scheduledEventId = ${ref.scheduledEventId}`);

async function respond(ctx: ServiceContext, input: unknown, outcome: Outcome): Promise<object> {
  const r = InputReader.of(input);
  const token = r.str('taskToken', { min: 1, max: 1024, required: true });
  let attrs: Record<string, unknown>;
  if (outcome === 'ActivityTaskCompleted') attrs = { result: r.data('result') };
  else if (outcome === 'ActivityTaskFailed') attrs = { reason: r.str('reason', { max: 256 }), details: r.data('details') };
  else if (outcome === 'ActivityTaskCanceled') attrs = { details: r.data('details') };
  else attrs = { details: r.data('details', 2048) };
  r.done();
  const ref = ctx.tokens.decodeTaskToken(token, 'a');
  const partition = ctx.router.partitionOf(ref.domain, ref.workflowId);
  return ctx.router.call(partition, 'activityResponse', { ref, partition, outcome, attrs } satisfies ActivityResponse);
}

export const respondActivityTaskCompleted = (c: ServiceContext, i: unknown) => respond(c, i, 'ActivityTaskCompleted');
export const respondActivityTaskFailed = (c: ServiceContext, i: unknown) => respond(c, i, 'ActivityTaskFailed');
export const respondActivityTaskCanceled = (c: ServiceContext, i: unknown) => respond(c, i, 'ActivityTaskCanceled');
export const recordActivityTaskHeartbeat = (c: ServiceContext, i: unknown) => respond(c, i, 'Heartbeat');

/** The started activity a token names, if it is still running (not closed, not timed out). */
function runningActivity(run: Execution, ref: TaskRef) {
  const act = activityByScheduled(run.state, ref.scheduledEventId);
  const actor = run.actors.activities.get(ref.scheduledEventId);
  if (!act || act.startedEventId !== ref.startedEventId || actor?.getSnapshot().value !== 'started') return undefined;
  return act;
}

/** Owner side: close the activity (persisted with the follow-up decision task) or record a heartbeat. */
export async function activityResponseOnOwner(owner: PartitionOwner, a: ActivityResponse): Promise<object> {
  const { ref } = a;
  const run = await owner.open({ ...ref, partition: a.partition });
  if (!run) throw unknownActivityTask(ref);
  return run.serial(async () => {
    const act = runningActivity(run, ref);
    if (!act) throw unknownActivityTask(ref);
    if (a.outcome === 'Heartbeat') {
      run.actors.heartbeat(ref.scheduledEventId, owner.machines.clock.now(), a.attrs.details as string | undefined);
      return { cancelRequested: act.cancelRequested };
    }
    // SWF: ActivityTaskCanceled names the last ActivityTaskCancelRequested of this activity.
    let latestCancelRequestedEventId: number | undefined;
    for (let id = run.log.length; a.outcome === 'ActivityTaskCanceled' && act.cancelRequested && id > act.scheduledEventId; id--) {
      const e = await run.log.get(id);
      if (e.type === 'ActivityTaskCancelRequested' && e.attrs.activityId === act.activityId) { latestCancelRequestedEventId = e.id; break; }
    }
    await run.commit((_s, b) => {
      b.add(a.outcome as Exclude<Outcome, 'Heartbeat'>, { ...a.attrs, scheduledEventId: ref.scheduledEventId, startedEventId: ref.startedEventId, latestCancelRequestedEventId });
    });
    return {};
  });
}
