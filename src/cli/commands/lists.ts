import { UsageError, positiveInt, str, type FlagSpecs } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { isoTime, plural, table } from '../format.js';

const DOMAIN_STATUSES = ['REGISTERED', 'DEPRECATED'] as const;
export const CLOSE_STATUSES = ['COMPLETED', 'FAILED', 'CANCELED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'] as const;
/** The engine's largest page. */
export const MAX_PAGE = 1000;

interface DomainInfo { name: string; status: string; description?: string; arn?: string }

export interface ExecutionInfo {
  execution: { workflowId: string; runId: string };
  workflowType: { name: string; version: string };
  startTimestamp: number;
  closeTimestamp?: number;
  executionStatus: 'OPEN' | 'CLOSED';
  closeStatus?: string;
  tagList?: string[];
  cancelRequested?: boolean;
}

/**
 * Calls a paged list action, following nextPageToken (SWF; Step Functions: nextToken) until `limit` items (or the end); from the
 * second page on, a progress line on stderr says how many came so far.
 */
export async function collectPages<T>(ctx: CommandContext, action: string, input: Record<string, unknown>, key: string, what: string, limit = Infinity,
  tokenKey: 'nextPageToken' | 'nextToken' = 'nextPageToken'): Promise<T[]> {
  const client = await ctx.client();
  const items: T[] = [];
  let nextPageToken: string | undefined;
  let pages = 0;
  try {
    do {
      const page = await client.call<Record<string, unknown>>(action, { ...input, [tokenKey]: nextPageToken });
      items.push(...((page[key] as T[] | undefined) ?? []));
      nextPageToken = page[tokenKey] as string | undefined;
      pages++;
      if (nextPageToken && items.length < limit) ctx.io.progress(`${what}: ${items.length} so far (page ${pages})…`);
    } while (nextPageToken && items.length < limit);
  } finally {
    if (pages > 1 || nextPageToken) ctx.io.endProgress();
  }
  return items.slice(0, limit);
}

export const domainsCommand: Command = {
  name: 'domains',
  summary: 'list the domains',
  usage: 'domains [--status REGISTERED|DEPRECATED]',
  flags: {
    status: { type: 'string', value: 'STATUS', help: 'registration status (default REGISTERED)', oneOf: DOMAIN_STATUSES },
  },
  async run(ctx) {
    const registrationStatus = str(ctx.flags, 'status') ?? 'REGISTERED';
    const domainInfos = await collectPages<DomainInfo>(ctx, 'ListDomains', { registrationStatus }, 'domainInfos', 'domains');
    if (ctx.json) return ctx.io.out(JSON.stringify({ domainInfos }, null, 2));
    if (domainInfos.length === 0) return ctx.io.out(`no ${registrationStatus.toLowerCase()} domains`);
    ctx.io.out(table(['NAME', 'STATUS', 'DESCRIPTION'], domainInfos.map((d) => [d.name, d.status, d.description ?? ''])));
  },
};

const executionFlags: FlagSpecs = {
  domain: { type: 'string', value: 'D', help: 'the domain', required: true },
  closed: { type: 'boolean', help: 'list closed executions (default: open ones)' },
  type: { type: 'string', value: 'NAME[:VERSION]', help: 'only this workflow type' },
  tag: { type: 'string', value: 'T', help: 'only executions with this tag' },
  'workflow-id': { type: 'string', value: 'W', help: 'only runs of this workflow id' },
  status: { type: 'string', value: 'S', help: 'only this close status (with --closed)', oneOf: CLOSE_STATUSES },
  since: { type: 'string', value: 'ISO', help: 'started (open) or closed (--closed) at or after this time' },
  hours: { type: 'string', value: 'N', help: 'started (open) or closed (--closed) in the last N hours' },
  limit: { type: 'string', value: 'N', help: 'at most N executions' },
  'page-size': { type: 'string', value: 'N', help: `executions per request (default ${MAX_PAGE})` },
};

/** The oldest time (epoch seconds) from --since or --hours; 0 (everything) without either. */
function oldestDate(ctx: CommandContext, command: string): number {
  const since = str(ctx.flags, 'since');
  const hours = str(ctx.flags, 'hours');
  if (since !== undefined && hours !== undefined) throw new UsageError('give --since or --hours, not both', command);
  if (since !== undefined) {
    const t = Date.parse(since);
    if (!Number.isFinite(t)) throw new UsageError(`--since must be an ISO 8601 time such as 2024-05-01T12:00:00Z, got ${JSON.stringify(since)}`, command);
    return t / 1000;
  }
  if (hours !== undefined) {
    const h = Number(hours);
    if (hours.trim() === '' || !Number.isFinite(h) || h <= 0) throw new UsageError(`--hours must be a positive number, got ${JSON.stringify(hours)}`, command);
    return Math.floor(Date.now() / 1000 - h * 3600);
  }
  return 0;
}

export const executionsCommand: Command = {
  name: 'executions',
  summary: 'list open (or closed) workflow executions',
  usage: 'executions --domain D [--closed] [--type NAME[:VERSION] | --tag T | --workflow-id W | --status S] [--since ISO | --hours N] [--limit N]',
  flags: executionFlags,
  details: 'At most one of --type, --tag, --workflow-id and --status (SWF allows one filter per query).\n'
    + 'Newest first. Long listings follow nextPageToken, with a progress line on stderr.',
  async run(ctx) {
    const open = !ctx.flags.closed;
    const given = ['type', 'tag', 'workflow-id', 'status'].filter((f) => ctx.flags[f] !== undefined);
    if (given.length > 1) throw new UsageError(`use at most one of --type, --tag, --workflow-id, --status (got ${given.map((g) => `--${g}`).join(' and ')})`, 'executions');
    if (open && ctx.flags.status !== undefined) throw new UsageError('--status filters closed executions: add --closed', 'executions');
    const limit = positiveInt(ctx.flags, 'limit', 'executions');
    const pageSize = positiveInt(ctx.flags, 'page-size', 'executions');
    if (pageSize !== undefined && pageSize > MAX_PAGE) throw new UsageError(`--page-size must be at most ${MAX_PAGE}`, 'executions');
    const input: Record<string, unknown> = {
      domain: str(ctx.flags, 'domain'),
      [open ? 'startTimeFilter' : 'closeTimeFilter']: { oldestDate: oldestDate(ctx, 'executions') },
      maximumPageSize: pageSize ?? Math.min(limit ?? MAX_PAGE, MAX_PAGE),
    };
    const type = str(ctx.flags, 'type');
    if (type !== undefined) {
      const [name, ...rest] = type.split(':');
      if (!name) throw new UsageError('--type needs a workflow type name (NAME or NAME:VERSION)', 'executions');
      input.typeFilter = rest.length > 0 ? { name, version: rest.join(':') } : { name };
    }
    const tag = str(ctx.flags, 'tag');
    if (tag !== undefined) input.tagFilter = { tag };
    const workflowId = str(ctx.flags, 'workflow-id');
    if (workflowId !== undefined) input.executionFilter = { workflowId };
    const status = str(ctx.flags, 'status');
    if (status !== undefined) input.closeStatusFilter = { status };

    const action = open ? 'ListOpenWorkflowExecutions' : 'ListClosedWorkflowExecutions';
    const executionInfos = await collectPages<ExecutionInfo>(ctx, action, input, 'executionInfos', `${open ? 'open' : 'closed'} executions`, limit);
    if (ctx.json) return ctx.io.out(JSON.stringify({ executionInfos }, null, 2));
    const kind = open ? 'open execution' : 'closed execution';
    if (executionInfos.length === 0) return ctx.io.out(`no ${kind}s in ${String(input.domain)}`);
    ctx.io.out(table(
      ['WORKFLOW ID', 'RUN ID', 'TYPE', 'STATUS', open ? 'STARTED' : 'CLOSED', 'TAGS'],
      executionInfos.map((e) => [
        e.execution.workflowId, e.execution.runId, `${e.workflowType.name}:${e.workflowType.version}`,
        e.executionStatus === 'OPEN' ? (e.cancelRequested ? 'OPEN (cancel requested)' : 'OPEN') : e.closeStatus ?? 'CLOSED',
        isoTime(open ? e.startTimestamp : e.closeTimestamp), (e.tagList ?? []).join(','),
      ]),
    ));
    ctx.io.out(`${plural(executionInfos.length, kind)}${limit !== undefined && executionInfos.length === limit ? ` (--limit ${limit})` : ''}`);
  },
};
