import type { RunKey } from '../kind/execution.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';
import { readRunKey } from './describe-workflow-execution.js';
import { historyPage, readPageToken } from '../history-pages.js';

interface HistoryRequest { key: RunKey; pageSize?: number; reverse: boolean; token?: string }

const scope = (k: RunKey) => `h:${k.domain}:${k.workflowId}:${k.runId}`;

export async function getWorkflowExecutionHistory(ctx: ServiceContext, input: unknown): Promise<object> {
  const { key, r } = await readRunKey(ctx, input);
  const token = r.str('nextPageToken', { max: 2048 });
  const pageSize = r.pageSize();
  const reverse = r.bool('reverseOrder') ?? false;
  r.done();
  await requireDomain(ctx, key.domain);
  if (token !== undefined) readPageToken(token, scope(key), ctx.clock.now());
  return ctx.router.call(key.partition, 'history', { key, pageSize, reverse, token } satisfies HistoryRequest);
}

/** Owner side: pages of the run's history, open or closed. */
export async function historyOnOwner(owner: PartitionOwner, a: HistoryRequest): Promise<{ events: Record<string, unknown>[]; nextPageToken?: string }> {
  const v = await owner.view(a.key);
  const now = owner.machines.clock.now();
  const cursor = a.token === undefined ? undefined : readPageToken(a.token, scope(a.key), now);
  return historyPage(v.log, { scope: scope(a.key), pageSize: a.pageSize, reverse: cursor?.reverse ?? a.reverse, from: cursor?.next, now });
}
