import { InputReader } from '../../protocol/validate.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';

async function countPending(ctx: ServiceContext, input: unknown, kind: 'd' | 'a'): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const taskList = r.taskList('taskList', true)!;
  r.done();
  await requireDomain(ctx, domain);
  return { count: await ctx.queues.pending(domain, kind, taskList.name), truncated: false };
}

export const countPendingDecisionTasks = (c: ServiceContext, i: unknown) => countPending(c, i, 'd');
export const countPendingActivityTasks = (c: ServiceContext, i: unknown) => countPending(c, i, 'a');
