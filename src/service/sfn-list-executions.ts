import { Fault } from '../domain/faults.js';
import { InputReader } from '../domain/validate.js';
import type { SfnExecutionRecord } from '../sfn/runtime/execution-records.js';
import { seconds, type ServiceContext } from './context.js';
import { executionRecords } from './sfn-execution-lookup.js';
import { requireStateMachine } from './sfn-lookup.js';
import { requestObject } from './sfn-input.js';

const STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'] as const;

/** Newest first; ties by name, descending (a total order, so the paging cursor is exact). */
const newestFirst = (a: SfnExecutionRecord, b: SfnExecutionRecord): number =>
  b.startDate - a.startDate || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);

interface Cursor { s: number; n: string }

function readCursor(token: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<Cursor> & { k?: string };
    if (c.k === 'x' && typeof c.s === 'number' && typeof c.n === 'string') return { s: c.s, n: c.n };
  } catch { /* not ours */ }
  throw new Fault('InvalidToken', `Invalid Token: '${token.slice(0, 64)}'`);
}

/** ListExecutions of one state machine: statusFilter, maxResults 0–1000 (0 ⇒ 100), newest first, opaque nextToken. */
export async function listExecutions(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const statusFilter = r.str('statusFilter', { max: 16, oneOf: STATUSES });
  const maxResults = r.int('maxResults', { min: 0, max: 1000 }) || 100;
  const nextToken = r.str('nextToken', { min: 1, max: 3096 });
  r.str('redriveFilter', { max: 32 });
  r.done();
  if (body.mapRunArn !== undefined && body.stateMachineArn === undefined) {
    throw new Fault('ValidationException', 'Map Runs are not supported: give stateMachineArn');
  }
  const sm = (await requireStateMachine(ctx, body.stateMachineArn)).value;
  const after = nextToken === undefined ? undefined : readCursor(nextToken);
  const all = (await executionRecords(ctx).list(sm.name))
    .filter((x) => x.stateMachineArn === sm.arn && (statusFilter === undefined || x.status === statusFilter))
    .sort(newestFirst);
  const start = after === undefined ? 0 : all.findIndex((x) => newestFirst(x, { startDate: after.s, name: after.n } as SfnExecutionRecord) > 0);
  const from = start < 0 ? all.length : start;
  const page = all.slice(from, from + maxResults);
  const more = from + maxResults < all.length;
  return {
    executions: page.map((x) => ({
      executionArn: x.executionArn, stateMachineArn: x.stateMachineArn, name: x.name, status: x.status,
      startDate: seconds(x.startDate), ...(x.stopDate !== undefined ? { stopDate: seconds(x.stopDate) } : {}),
    })),
    ...(more ? { nextToken: Buffer.from(JSON.stringify({ k: 'x', s: page.at(-1)!.startDate, n: page.at(-1)!.name })).toString('base64url') } : {}),
  };
}
