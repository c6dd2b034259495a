import { InputReader } from '../../protocol/validate.js';
import type { SfnActivityTask, SfnStartTaskPayload } from '../kind/sfn-owner-ops.js';
import { SFN_DOMAIN } from '../kind/sfn-host.js';
import type { ServiceContext } from '../../service/context.js';
import { pollMs } from '../../protocol/poll-hold.js';
import { requireActivity } from '../lookup.js';
import { requestObject } from '../input.js';

/**
 * GetActivityTask: long-polls the activity's task list (≤ 60 s; `afPollTimeoutMs` shortens it, as
 * for the SWF polls); the owner records ActivityStarted before the token is handed out. Nothing → `{}`.
 */
export async function getActivityTask(ctx: ServiceContext, input: unknown, signal?: AbortSignal): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const workerName = r.str('workerName', { min: 1, max: 80 });
  const wait = pollMs(r, ctx.pollHoldMs);
  r.done();
  const activity = (await requireActivity(ctx, body.activityArn)).value;
  const task = await ctx.queues.poll(SFN_DOMAIN, 'a', activity.arn, Date.now() + wait,
    (t) => ctx.router.call(t.partition, 'sfnStartTask', { task: t, workerName } satisfies SfnStartTaskPayload),
    signal);
  return task ?? {};
}
