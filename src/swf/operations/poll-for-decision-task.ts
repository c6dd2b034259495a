import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { pollMs } from '../../protocol/poll-hold.js';
import type { TaskMessage } from '../../matching/task-message.js';
import type { PartitionOwner } from '../kind/partition-owner.js';
import type { RunKey } from '../kind/execution.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';
import { historyPage, readPageToken, type EventSource } from '../history-pages.js';
import { decode, encode } from '../../protocol/codec.js';

interface PageArgs { pageSize?: number; reverse: boolean; startAtPrevious: boolean }
export interface StartDecision extends PageArgs { task: TaskMessage; identity?: string }
interface DecisionPage extends PageArgs { key: RunKey; scheduledEventId: number; startedEventId: number; from: number }

const scope = (k: RunKey, startedEventId: number) => `d:${k.domain}:${k.workflowId}:${k.runId}:${startedEventId}`;

export async function pollForDecisionTask(ctx: ServiceContext, input: unknown, signal?: AbortSignal): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const taskList = r.taskList('taskList', true)!;
  const identity = r.str('identity', { max: 256 });
  const token = r.str('nextPageToken', { max: 2048 });
  const pageSize = r.pageSize();
  const reverse = r.bool('reverseOrder') ?? false;
  const startAtPrevious = r.bool('startAtPreviousStartedEvent') ?? false;
  const wait = pollMs(r, ctx.pollHoldMs);
  r.done();
  await requireDomain(ctx, domain);
  if (token !== undefined) {
    // A follow-up page of a task already handed out: the key travels inside the token.
    const [raw, keyPart] = token.split('.');
    const page = readPageKey(keyPart, domain);
    const cursor = readPageToken(raw ?? '', scope(page.key, page.startedEventId), ctx.clock.now());
    // The partition is derived again, never taken from the (client-held) token.
    const key: RunKey = { ...page.key, partition: ctx.router.partitionOf(page.key.domain, page.key.workflowId) };
    return ctx.router.call(key.partition, 'decisionPage', { ...page, key, from: cursor.next, reverse: cursor.reverse, pageSize });
  }
  const deadline = Date.now() + wait;
  const task = await ctx.queues.poll(domain, 'd', taskList.name, deadline,
    (t) => ctx.router.call(t.partition, 'startDecision', { task: t, identity, pageSize, reverse, startAtPrevious } satisfies StartDecision),
    signal);
  return task ?? { startedEventId: 0, previousStartedEventId: 0 };
}

/** The task part of a decision page token; anything malformed is a ValidationException, as for the cursor part. */
function readPageKey(part: string | undefined, domain: string): DecisionPage {
  let v: any;
  try { v = decode(Buffer.from(part ?? '', 'base64url')); } catch { v = undefined; }
  const k = v?.key;
  if (typeof v !== 'object' || v === null || typeof k !== 'object' || k === null || k.domain !== domain
    || typeof k.workflowId !== 'string' || typeof k.runId !== 'string'
    || !Number.isInteger(v.scheduledEventId) || !Number.isInteger(v.startedEventId)) {
    throw new Fault('ValidationException', 'Invalid nextPageToken');
  }
  return v as DecisionPage;
}

async function decisionResponse(owner: PartitionOwner, key: RunKey, events: EventSource, s: { scheduledEventId: number; startedEventId: number; previousStartedEventId: number; workflowType: unknown }, a: PageArgs & { from?: number }) {
  const from = a.from ?? (a.startAtPrevious && s.previousStartedEventId > 0 && !a.reverse ? s.previousStartedEventId : undefined);
  const page = await historyPage(events, { scope: scope(key, s.startedEventId), pageSize: a.pageSize, reverse: a.reverse, from, now: owner.machines.clock.now(), upTo: s.startedEventId });
  const pageKey = { key, scheduledEventId: s.scheduledEventId, startedEventId: s.startedEventId, from: 0, reverse: a.reverse, startAtPrevious: a.startAtPrevious };
  return {
    taskToken: owner.tokens.encodeTaskToken({ ...key, kind: 'd', scheduledEventId: s.scheduledEventId, startedEventId: s.startedEventId }),
    startedEventId: s.startedEventId,
    previousStartedEventId: s.previousStartedEventId,
    workflowExecution: { workflowId: key.workflowId, runId: key.runId },
    workflowType: s.workflowType,
    events: page.events,
    nextPageToken: page.nextPageToken ? `${page.nextPageToken}.${Buffer.from(encode(pageKey)).toString('base64url')}` : undefined,
  };
}

/** Owner side: start the decision task if it is still waiting, and answer with the first history page. */
export async function startDecisionOnOwner(owner: PartitionOwner, a: StartDecision): Promise<object | null> {
  const { task } = a;
  const key: RunKey = { domain: task.domain, workflowId: task.workflowId, runId: task.runId, partition: task.partition };
  const run = await owner.open(key);
  if (!run) return null;
  return run.serial(async () => {
    const d = run.state.decision;
    if (!d || d.scheduledEventId !== task.scheduledEventId || d.startedEventId !== null || run.isClosed) return null;
    const [started] = await run.commit((_s, b) => { b.add('DecisionTaskStarted', { identity: a.identity, scheduledEventId: task.scheduledEventId }); });
    const s = run.state;
    return decisionResponse(owner, key, run.log, {
      scheduledEventId: task.scheduledEventId, startedEventId: started!.id,
      previousStartedEventId: s.previousStartedEventId, workflowType: s.started.workflowType,
    }, a);
  });
}

/** Owner side: a later page of a decision task's history (no new task is started). */
export async function decisionPageOnOwner(owner: PartitionOwner, a: DecisionPage): Promise<object> {
  const view = await owner.view(a.key);
  return decisionResponse(owner, a.key, view.log, {
    scheduledEventId: a.scheduledEventId, startedEventId: a.startedEventId,
    previousStartedEventId: view.state.previousStartedEventId, workflowType: view.state.started.workflowType,
  }, a);
}
