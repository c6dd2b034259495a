import { createHash } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { retentionMs } from '../../engine/retention.js';
import type { Cursor, VisibilityFilter, VisibilityQuery } from '../visibility-index.js';
import { executionInfoOf } from '../visibility-records.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';

const CLOSE_STATUSES = ['COMPLETED', 'FAILED', 'CANCELED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'] as const;

function timeFilter(r: InputReader, name: string): { oldest: number; latest?: number } | undefined {
  return r.struct(name, false, (f) => ({ oldest: f.timestamp('oldestDate', true)!, latest: f.timestamp('latestDate') }));
}

/**
 * Reads the filters of List/Count Open/Closed WorkflowExecutions with SWF's rules: open queries
 * need startTimeFilter; closed ones exactly one of startTimeFilter and closeTimeFilter; at most one
 * of executionFilter, typeFilter, tagFilter (and closeStatusFilter for closed runs).
 */
export function readVisibilityQuery(r: InputReader, open: boolean): VisibilityQuery {
  const domain = r.id('domain', true);
  const start = timeFilter(r, 'startTimeFilter');
  const close = open ? undefined : timeFilter(r, 'closeTimeFilter');
  const filters: { name: string; f: VisibilityFilter | undefined }[] = [
    { name: 'executionFilter', f: r.struct('executionFilter', false, (f) => ({ kind: 'execution', workflowId: f.id('workflowId', true) })) },
    { name: 'typeFilter', f: r.struct('typeFilter', false, (f) => ({ kind: 'type', name: f.id('name', true), version: f.id('version', false, 64) })) },
    { name: 'tagFilter', f: r.struct('tagFilter', false, (f) => ({ kind: 'tag', tag: f.str('tag', { max: 256, required: true }) })) },
  ];
  if (!open) {
    filters.splice(1, 0, { name: 'closeStatusFilter', f: r.struct('closeStatusFilter', false, (f) => ({ kind: 'status', status: f.str('status', { max: 32, required: true, oneOf: CLOSE_STATUSES }) as typeof CLOSE_STATUSES[number] })) });
  }
  r.done();
  const given = filters.filter((x) => x.f);
  if (given.length > 1) {
    throw new Fault('ValidationException', `${filters.map((x) => x.name).join(', ')} are mutually exclusive: specify at most one (got ${given.map((x) => x.name).join(' and ')})`);
  }
  if (open && !start) throw new Fault('ValidationException', "Value null at 'startTimeFilter' failed to satisfy constraint: Member must not be null");
  if (!open && (start ? 1 : 0) + (close ? 1 : 0) !== 1) {
    throw new Fault('ValidationException', 'Exactly one of startTimeFilter and closeTimeFilter must be specified');
  }
  const time = (start ?? close)!;
  return { domain, open, by: start ? 'start' : 'close', oldest: time.oldest, latest: time.latest, filter: given[0]?.f };
}

/** Tokens carry the last item's position and a digest of the query they belong to. */
function digest(q: VisibilityQuery, reverse: boolean): string {
  return createHash('sha256').update(JSON.stringify([q, reverse])).digest('base64url').slice(0, 12);
}

function readToken(token: string | undefined, q: VisibilityQuery, reverse: boolean): Cursor | undefined {
  if (token === undefined) return undefined;
  const bad = () => new Fault('ValidationException', 'Invalid nextPageToken: it does not belong to this query');
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 3 || typeof v[0] !== 'number' || typeof v[1] !== 'string' || v[2] !== digest(q, reverse)) throw bad();
  return { t: v[0], id: v[1] };
}

const writeToken = (c: Cursor, q: VisibilityQuery, reverse: boolean) =>
  Buffer.from(JSON.stringify([c.t, c.id, digest(q, reverse)])).toString('base64url');

/** Reads a query and resolves its domain; closed runs past the domain's retention are gone. */
export async function visibilityQuery(ctx: ServiceContext, r: InputReader, open: boolean): Promise<VisibilityQuery> {
  const q = readVisibilityQuery(r, open);
  const { value } = await requireDomain(ctx, q.domain);
  if (!open) ctx.visibility.prune(q.domain, ctx.clock.now() - retentionMs(value.retentionDays));
  return q;
}

async function listExecutions(ctx: ServiceContext, input: unknown, open: boolean): Promise<object> {
  const r = InputReader.of(input);
  const token = r.str('nextPageToken', { min: 1, max: 2048 });
  const pageSize = r.pageSize();
  const reverse = r.bool('reverseOrder') ?? false;
  const q = await visibilityQuery(ctx, r, open);
  const after = readToken(token, q, reverse);
  const { items, more } = ctx.visibility.list(q, { reverse, limit: pageSize || 1000, after });
  const last = items[items.length - 1];
  const t = (x: typeof last) => (q.by === 'start' ? x!.startTimestamp : x!.closeTimestamp!);
  return {
    executionInfos: items.map(executionInfoOf),
    nextPageToken: more && last ? writeToken({ t: t(last), id: last.execution.runId }, q, reverse) : undefined,
  };
}

export const listOpenWorkflowExecutions = (ctx: ServiceContext, input: unknown) => listExecutions(ctx, input, true);
export const listClosedWorkflowExecutions = (ctx: ServiceContext, input: unknown) => listExecutions(ctx, input, false);
