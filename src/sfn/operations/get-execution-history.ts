import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { fromStored, toWireEvent } from '../kind/sfn-events.js';
import type { ServiceContext } from '../../service/context.js';
import { requireExecution } from '../execution-lookup.js';
import { requestObject } from '../input.js';

function readCursor(token: string, reverse: boolean): number {
  try {
    const c = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { k?: string; a?: unknown; r?: unknown };
    if (c.k === 'h' && typeof c.a === 'number' && c.r === reverse) return c.a;
  } catch { /* not ours */ }
  throw new Fault('InvalidToken', `Invalid Token: '${token.slice(0, 64)}'`);
}

/** GetExecutionHistory: maxResults 0–1000 (0 ⇒ 100), reverseOrder, nextToken, includeExecutionData (default true). */
export async function getExecutionHistory(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const maxResults = r.int('maxResults', { min: 0, max: 1000 }) || 100;
  const reverse = r.bool('reverseOrder') ?? false;
  const nextToken = r.str('nextToken', { min: 1, max: 3096 });
  const includeData = r.bool('includeExecutionData') ?? true;
  r.done();
  const rec = await requireExecution(ctx, body.executionArn);
  const after = nextToken === undefined ? undefined : readCursor(nextToken, reverse);
  const { events } = await ctx.store.read(ctx.subjects.sfnHistory(rec.partition, rec.stateMachineName, rec.name));
  let all = fromStored(events);
  if (reverse) all = [...all].reverse();
  const rest = after === undefined ? all : all.filter((e) => (reverse ? e.id < after : e.id > after));
  const page = rest.slice(0, maxResults);
  return {
    events: page.map((e) => toWireEvent(e, includeData)),
    ...(rest.length > maxResults ? { nextToken: Buffer.from(JSON.stringify({ k: 'h', a: page.at(-1)!.id, r: reverse })).toString('base64url') } : {}),
  };
}
