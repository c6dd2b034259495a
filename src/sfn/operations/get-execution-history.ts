import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import type { HistoryEvent } from '../../../machines/swf/history-event.js';
import { historyLogs } from '../kind/history-logs.js';
import type { EventLog } from '../../history/event-log.js';
import { fromStored, toWireEvent, type SfnStoredEvent } from '../kind/sfn-events.js';
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
  const subject = ctx.subjects.sfnHistory(rec.partition, rec.stateMachineName, rec.name);
  const held = await historyLogs(ctx.store).of(subject, rec.startDate);
  const { page, more } = held.ordered
    ? await pageOf(held.log, { after, reverse, maxResults })
    : pageOfAll(fromStored((await ctx.store.read(subject)).events), { after, reverse, maxResults });
  return {
    events: page.map((e) => toWireEvent(e, includeData)),
    ...(more ? { nextToken: Buffer.from(JSON.stringify({ k: 'h', a: page.at(-1)!.id, r: reverse })).toString('base64url') } : {}),
  };
}

interface PageOpts { after?: number; reverse: boolean; maxResults: number }

/** A page read from the held history: only the transitions that hold its events. */
async function pageOf(log: EventLog, { after, reverse, maxResults }: PageOpts): Promise<{ page: SfnStoredEvent[]; more: boolean }> {
  const n = log.length;
  const step = reverse ? -1 : 1;
  const page: HistoryEvent[] = [];
  for (let id = after === undefined ? (reverse ? n : 1) : reverse ? Math.min(after - 1, n) : Math.max(after + 1, 1); id >= 1 && id <= n; id += step) {
    const e = log.peek(id) ?? await log.get(id) as HistoryEvent | undefined;
    // No event of this id: a transition a crash cut short, after which new events are numbered on.
    if (e?.id !== id) continue;
    if (page.length === maxResults) return { page: fromStored(page), more: true };
    page.push(e);
  }
  return { page: fromStored(page), more: false };
}

/** A page of a history whose ids do not always increase (another writer appended): every event as stored. */
function pageOfAll(events: SfnStoredEvent[], { after, reverse, maxResults }: PageOpts): { page: SfnStoredEvent[]; more: boolean } {
  const all = reverse ? [...events].reverse() : events;
  const rest = after === undefined ? all : all.filter((e) => (reverse ? e.id < after : e.id > after));
  return { page: rest.slice(0, maxResults), more: rest.length > maxResults };
}
