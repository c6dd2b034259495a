import { createHash } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import type { SfnCursor, SfnListQuery, SfnVisibilityIndex } from '../visibility/sfn-visibility-index.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { findAlias, findVersion, requireStateMachine } from '../lookup.js';
import { parseStateMachineRef, unqualifiedArn } from '../arns.js';
import { requestObject } from '../input.js';
import { readMapRunArn } from '../map-runs/map-run-arns.js';

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

/** The executions of a state machine, or of one of its versions or aliases (AWS: the same member). */
async function stateMachineQuery(ctx: ServiceContext, body: Record<string, unknown>): Promise<SfnListQuery> {
  const ref = parseStateMachineRef(body.stateMachineArn, 'stateMachineArn', { version: true, alias: true });
  const sm = (await requireStateMachine(ctx, unqualifiedArn(body.stateMachineArn as string))).value;
  if (sm.type === 'EXPRESS') throw new Fault('StateMachineTypeNotSupported', 'This operation is not supported by this type of state machine');
  const via = ref.version !== undefined || ref.alias !== undefined ? body.stateMachineArn as string : undefined;
  if (via !== undefined && !(await findVersion(ctx, via, ref)) && !(await findAlias(ctx, via, ref))) {
    throw new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${via}'`);
  }
  return { stateMachineName: sm.name, ...(via !== undefined ? { via } : {}) };
}

/** The child executions of a map run: AWS takes mapRunArn or stateMachineArn, not both. */
async function mapRunQuery(ctx: ServiceContext, body: Record<string, unknown>): Promise<SfnListQuery> {
  if (body.stateMachineArn !== undefined && body.stateMachineArn !== null) {
    throw new Fault('ValidationException', 'Only one of stateMachineArn and mapRunArn can be specified');
  }
  if (typeof body.mapRunArn !== 'string') throw new Fault('SerializationException', "Expected string at 'mapRunArn'");
  const parts = readMapRunArn(body.mapRunArn);
  if (!parts) throw new Fault('InvalidArn', `Invalid Arn: '${body.mapRunArn.slice(0, 256)}'`);
  if (!(await ctx.sfnMapRuns?.get(body.mapRunArn))) throw new Fault('ResourceNotFound', `Map Run Does Not Exist: '${body.mapRunArn}'`);
  return { stateMachineName: `${parts.stateMachineName}/${parts.label}`, via: body.mapRunArn };
}

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
  const q = body.mapRunArn !== undefined && body.mapRunArn !== null ? await mapRunQuery(ctx, body) : await stateMachineQuery(ctx, body);
  if (statusFilter !== undefined) q.status = statusFilter;
  if (redriveFilter !== undefined) q.redriven = redriveFilter === 'REDRIVEN';
  const after = nextToken === undefined ? undefined : readCursor(nextToken, q);
  const { items, more } = index(ctx).list(q, { limit: maxResults, after });
  const last = items.at(-1);
  return {
    executions: items.map((x) => ({
      executionArn: x.executionArn, stateMachineArn: x.stateMachineArn, name: x.name, status: x.status,
      ...(x.stateMachineVersionArn !== undefined ? { stateMachineVersionArn: x.stateMachineVersionArn } : {}),
      ...(x.stateMachineAliasArn !== undefined ? { stateMachineAliasArn: x.stateMachineAliasArn } : {}),
      // AWS: only when the list was asked by mapRunArn.
      ...(q.via !== undefined && x.mapRunArn === q.via ? { mapRunArn: x.mapRunArn } : {}),
      startDate: seconds(x.startDate), ...(x.stopDate !== undefined ? { stopDate: seconds(x.stopDate) } : {}),
      // AWS: 0 for an execution never redriven.
      redriveCount: x.redriveCount ?? 0, ...(x.redriveDate !== undefined ? { redriveDate: seconds(x.redriveDate) } : {}),
    })),
    ...(more && last ? { nextToken: writeCursor({ startDate: last.startDate, name: last.name }, q) } : {}),
  };
}
