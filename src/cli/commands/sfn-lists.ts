import { Fault } from '../../protocol/faults.js';
import { UsageError, positiveInt, str, type FlagSpecs } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { isoTime, plural, table } from '../format.js';
import { collectPages, MAX_PAGE } from './lists.js';

export const SFN_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'] as const;

export const stateMachineFlag: FlagSpecs = {
  'state-machine': { type: 'string', value: 'ARN|NAME', help: 'the state machine (an ARN, or its name)', required: true },
};

export const pagingFlags: FlagSpecs = {
  limit: { type: 'string', value: 'N', help: 'at most N items' },
  'page-size': { type: 'string', value: 'N', help: `items per request (default ${MAX_PAGE})` },
};

/** --limit and --page-size, checked. */
export function paging(ctx: CommandContext, command: string): { limit: number | undefined; maxResults: number } {
  const limit = positiveInt(ctx.flags, 'limit', command);
  const pageSize = positiveInt(ctx.flags, 'page-size', command);
  if (pageSize !== undefined && pageSize > MAX_PAGE) throw new UsageError(`--page-size must be at most ${MAX_PAGE}`, command);
  return { limit, maxResults: pageSize ?? Math.min(limit ?? MAX_PAGE, MAX_PAGE) };
}

interface StateMachineItem { stateMachineArn: string; name: string; type: string; creationDate: number }
interface ExecutionItem { executionArn: string; stateMachineArn: string; name: string; status: string; startDate: number; stopDate?: number }

/** A state machine ARN from --state-machine: an ARN as given, a name looked up with ListStateMachines. */
export async function stateMachineArn(ctx: CommandContext): Promise<string> {
  const given = str(ctx.flags, 'state-machine')!;
  if (given.startsWith('arn:')) return given;
  const all = await collectPages<StateMachineItem>(ctx, 'ListStateMachines', { maxResults: MAX_PAGE }, 'stateMachines', 'state machines', Infinity, 'nextToken');
  const found = all.find((m) => m.name === given);
  if (!found) {
    throw new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: no state machine named ${JSON.stringify(given)}`);
  }
  return found.stateMachineArn;
}

export const sfnStateMachinesCommand: Command = {
  name: 'sfn state-machines',
  summary: 'list the Step Functions state machines',
  usage: 'sfn state-machines [--limit N] [--page-size N]',
  flags: pagingFlags,
  details: 'Sorted by name. Long listings follow nextToken, with a progress line on stderr.',
  async run(ctx) {
    const { limit, maxResults } = paging(ctx, 'sfn state-machines');
    const stateMachines = await collectPages<StateMachineItem>(ctx, 'ListStateMachines', { maxResults }, 'stateMachines', 'state machines', limit, 'nextToken');
    if (ctx.json) return ctx.io.out(JSON.stringify({ stateMachines }, null, 2));
    if (stateMachines.length === 0) return ctx.io.out('no state machines');
    ctx.io.out(table(['NAME', 'TYPE', 'CREATED', 'ARN'], stateMachines.map((m) => [m.name, m.type, isoTime(m.creationDate), m.stateMachineArn])));
    ctx.io.out(plural(stateMachines.length, 'state machine'));
  },
};

export const sfnExecutionsCommand: Command = {
  name: 'sfn executions',
  summary: 'list the executions of a state machine',
  usage: 'sfn executions --state-machine ARN|NAME [--status S] [--limit N] [--page-size N]',
  flags: {
    ...stateMachineFlag,
    status: { type: 'string', value: 'S', help: 'only executions with this status', oneOf: SFN_STATUSES },
    ...pagingFlags,
  },
  details: 'Newest first. Long listings follow nextToken, with a progress line on stderr.',
  async run(ctx) {
    const { limit, maxResults } = paging(ctx, 'sfn executions');
    const arn = await stateMachineArn(ctx);
    const status = str(ctx.flags, 'status');
    const executions = await collectPages<ExecutionItem>(ctx, 'ListExecutions', { stateMachineArn: arn, maxResults, ...(status ? { statusFilter: status } : {}) },
      'executions', 'executions', limit, 'nextToken');
    if (ctx.json) return ctx.io.out(JSON.stringify({ executions }, null, 2));
    if (executions.length === 0) return ctx.io.out(`no ${status ? `${status} ` : ''}executions of ${arn}`);
    ctx.io.out(table(['NAME', 'STATUS', 'STARTED', 'STOPPED', 'ARN'],
      executions.map((x) => [x.name, x.status, isoTime(x.startDate), x.stopDate === undefined ? '-' : isoTime(x.stopDate), x.executionArn])));
    ctx.io.out(`${plural(executions.length, 'execution')}${limit !== undefined && executions.length === limit ? ` (--limit ${limit})` : ''}`);
  },
};
