import { createHash } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import type { SfnCursor, SfnListQuery, SfnVisibilityIndex } from '../visibility/sfn-visibility-index.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { findAlias, findVersion, requireStateMachine } from '../lookup.js';
import { parseStateMachineRef, unqualifiedArn } from '../arns.js';
import { requestObject } from '../input.js';

const STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'] as const;

function index(ctx: ServiceContext): SfnVisibilityIndex {
  if (!ctx.sfnVisibility) throw new Fault('InternalFailure', 'Step Functions executions are not served by this node');
  return ctx.sfnVisibility;
}

/** Tokens carry the last item's start date and name, and a digest of the query they belong to. */
const digest = (q: SfnListQuery): string => createHash('sha256').update(JSON.stringify([q.stateMachineName, q.status ?? null, ...(q.via === undefined ? [] : [q.via]),
  ...(q.redriven === undefined ? [] : [`redriven:${q.redriven}`])])).digest('base64url').slice(0, 12);

function readCursor(token: string, q: SfnListQuery): SfnCursor {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 3 && Number.isFinite(v[0]) && typeof v[1] === 'string' && v[2] === digest(q)) return { startDate: v[0] as number, name: v[1] };
  } catch { /* not ours */ }
  throw new Fault('InvalidToken', `Invalid Token: '${token.slice(0, 64)}'`);
}

const writeCursor = (c: SfnCursor, q: SfnListQuery): string => Buffer.from(JSON.stringify([c.startDate, c.name, digest(q)])).toString('base64url');

/**
 * ListExecutions of one state machine from the node's visibility index: statusFilter, maxResults
 * 0–1000 (0 ⇒ 100), newest first (ties: names descending), an opaque nextToken that stays exact
 * while executions start and close between pages.
 */
export async function listExecutions(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const statusFilter = r.str('statusFilter', { max: 16, oneOf: STATUSES });
  const maxResults = r.int('maxResults', { min: 0, max: 1000 }) || 100;
  const nextToken = r.str('nextToken', { min: 1, max: 3096 });
  const redriveFilter = r.str('redriveFilter', { max: 32, oneOf: ['REDRIVEN', 'NOT_REDRIVEN'] });
  r.done();
  if (body.mapRunArn !== undefined && body.stateMachineArn === undefined) {
    throw new Fault('ValidationException', 'Map Runs are not supported: give stateMachineArn');
  }
  // A version or alias ARN lists the executions started through it (AWS: the same member).
  const ref = parseStateMachineRef(body.stateMachineArn, 'stateMachineArn', { version: true, alias: true });
  const sm = (await requireStateMachine(ctx, unqualifiedArn(body.stateMachineArn as string))).value;
  const via = ref.version !== undefined || ref.alias !== undefined ? body.stateMachineArn as string : undefined;
  if (via !== undefined && !(await findVersion(ctx, via, ref)) && !(await findAlias(ctx, via, ref))) {
    throw new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${via}'`);
  }
  const q: SfnListQuery = {
    stateMachineName: sm.name, status: statusFilter, ...(via !== undefined ? { via } : {}),
    ...(redriveFilter !== undefined ? { redriven: redriveFilter === 'REDRIVEN' } : {}),
  };
  const after = nextToken === undefined ? undefined : readCursor(nextToken, q);
  const { items, more } = index(ctx).list(q, { limit: maxResults, after });
  const last = items.at(-1);
  return {
    executions: items.map((x) => ({
      executionArn: x.executionArn, stateMachineArn: x.stateMachineArn, name: x.name, status: x.status,
      ...(x.stateMachineVersionArn !== undefined ? { stateMachineVersionArn: x.stateMachineVersionArn } : {}),
      ...(x.stateMachineAliasArn !== undefined ? { stateMachineAliasArn: x.stateMachineAliasArn } : {}),
      startDate: seconds(x.startDate), ...(x.stopDate !== undefined ? { stopDate: seconds(x.stopDate) } : {}),
      // AWS: 0 for an execution never redriven.
      redriveCount: x.redriveCount ?? 0, ...(x.redriveDate !== undefined ? { redriveDate: seconds(x.redriveDate) } : {}),
    })),
    ...(more && last ? { nextToken: writeCursor({ startDate: last.startDate, name: last.name }, q) } : {}),
  };
}
