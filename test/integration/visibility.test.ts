import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VisibilityIndex } from '../../src/swf/visibility-index.js';
import { VisibilityFeed } from '../../src/visibility/visibility-feed.js';
import { executionInfoOf } from '../../src/swf/visibility-records.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { rng } from '../helpers/rng.js';
import { inParallel } from '../helpers/in-parallel.js';

/*
 * List/Count Open/Closed WorkflowExecutions over 500 executions of 3 workflow types with 5 tags (one
 * each), closed with every close status: COMPLETED, FAILED, CANCELED and CONTINUED_AS_NEW by
 * decisions, TIMED_OUT by executionStartToCloseTimeout "1", TERMINATED by TerminateWorkflowExecution;
 * some open runs have cancelRequested (RequestCancelWorkflowExecution). Each continued run's
 * successor (same workflowId, new runId) is one more open execution.
 */

type Obj = Record<string, any>;
type Outcome = 'OPEN' | 'CANCEL_REQUESTED' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'TIMED_OUT' | 'TERMINATED' | 'CONTINUED_AS_NEW';
interface Run { workflowId: string; runId: string; type: { name: string; version: string }; tag: string; outcome: Outcome; info: Obj }

let e: TestEngine;
const domain = uniqueDomain('vis');
const TYPES = [{ name: 'Alpha', version: '1' }, { name: 'Alpha', version: '2' }, { name: 'Beta', version: '1' }];
const TAGS = ['red', 'green', 'blue', 'cyan', 'plum'];
const N = 500;
/** A continued run: the executionFilter then matches two runs. */
const CONTINUED = 'wf-0';
const runs: Run[] = [];
const call = <T = Obj>(action: string, input: object): Promise<T> => e.client.call<T>(action, input);


const DECISION: Partial<Record<Outcome, (r: Run) => object>> = {
  COMPLETED: () => ({ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'ok' } }),
  FAILED: () => ({ decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: 'no' } }),
  CANCELED: () => ({ decisionType: 'CancelWorkflowExecution', cancelWorkflowExecutionDecisionAttributes: {} }),
  CONTINUED_AS_NEW: (r) => ({
    decisionType: 'ContinueAsNewWorkflowExecution',
    continueAsNewWorkflowExecutionDecisionAttributes: { taskList: { name: 'tl-successors' }, tagList: [r.tag] },
  }),
};

/** Polls `n` decision tasks of a task list and answers each with the decision for its run. */
async function decideAll(taskList: string, n: number, decision: (r: Run) => object): Promise<void> {
  let left = n;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (left > 0) {
      left--;
      const t = await call('PollForDecisionTask', { domain, taskList: { name: taskList }, afPollTimeoutMs: 5000 });
      if (!t.taskToken) { left++; continue; }
      const run = runs.find((r) => r.runId === t.workflowExecution.runId)!;
      await call('RespondDecisionTaskCompleted', { taskToken: t.taskToken, decisions: [decision(run)] });
    }
  }));
}

beforeAll(async () => {
  e = await startTestEngine();
  await e.client.ensureDomain(domain);
  for (const t of TYPES) {
    await call('RegisterWorkflowType', {
      domain, ...t, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
    });
  }
  const random = rng(42);
  const outcomes: Outcome[] = ['OPEN', 'OPEN', 'CANCEL_REQUESTED', 'COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT', 'TERMINATED', 'CONTINUED_AS_NEW'];
  for (let i = 0; i < N; i++) {
    const drawn = outcomes[Math.floor(random() * outcomes.length)]!;
    const outcome = `wf-${i}` === CONTINUED ? 'CONTINUED_AS_NEW' : drawn;
    runs.push({ workflowId: `wf-${i}`, runId: '', type: TYPES[i % 3]!, tag: TAGS[Math.floor(random() * 5)]!, outcome, info: {} });
  }
  await inParallel(runs, 8, async (r) => {
    r.runId = (await call('StartWorkflowExecution', {
      domain, workflowId: r.workflowId, workflowType: r.type, taskList: { name: `tl-${r.outcome}` }, tagList: [r.tag],
      executionStartToCloseTimeout: r.outcome === 'TIMED_OUT' ? '1' : undefined,
    })).runId;
  });
  for (const [outcome, decision] of Object.entries(DECISION)) {
    await decideAll(`tl-${outcome}`, runs.filter((r) => r.outcome === outcome).length, decision);
  }
  await inParallel(runs.filter((r) => r.outcome === 'TERMINATED'), 8, async (r) => {
    await call('TerminateWorkflowExecution', { domain, workflowId: r.workflowId, runId: r.runId, reason: 'test' });
  });
  await inParallel(runs.filter((r) => r.outcome === 'CANCEL_REQUESTED'), 8, async (r) => {
    await call('RequestCancelWorkflowExecution', { domain, workflowId: r.workflowId, runId: r.runId });
  });
  for (const r of runs.filter((x) => x.outcome === 'CONTINUED_AS_NEW')) {
    const last = (await e.client.history(domain, { workflowId: r.workflowId, runId: r.runId })).at(-1)!;
    const runId = (last.workflowExecutionContinuedAsNewEventAttributes as Obj).newExecutionRunId as string;
    runs.push({ ...r, runId, outcome: 'OPEN', info: {} });
  }
  const closed = runs.filter((r) => !isOpen(r)).length;
  await until(async () => (await call('CountClosedWorkflowExecutions', { domain, startTimeFilter: { oldestDate: 0 } })).count === closed, { timeoutMs: 20_000 });
  await until(async () => (await call('CountOpenWorkflowExecutions', { domain, startTimeFilter: { oldestDate: 0 } })).count === runs.length - closed);
  await inParallel(runs, 8, async (r) => {
    r.info = (await call('DescribeWorkflowExecution', { domain, execution: { workflowId: r.workflowId, runId: r.runId } })).executionInfo;
  });
}, 120_000);
afterAll(async () => { await e?.stop(); });

/** Every page of a List call with `pageSize`, concatenated. */
async function allPages(action: string, input: Obj, pageSize?: number): Promise<Obj[]> {
  const out: Obj[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await call(action, { ...input, maximumPageSize: pageSize, nextPageToken });
    if (pageSize) expect(page.executionInfos.length).toBeLessThanOrEqual(pageSize);
    out.push(...page.executionInfos);
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  return out;
}

function isOpen(r: Run): boolean {
  return r.outcome === 'OPEN' || r.outcome === 'CANCEL_REQUESTED';
}
const startOf = (r: Run) => r.info.startTimestamp as number;
const closeOf = (r: Run) => r.info.closeTimestamp as number;

/** The expected list: newest first by the filtered time, ties by runId, reversed on request. */
function expected(keep: (r: Run) => boolean, time: (r: Run) => number, reverse = false): Obj[] {
  const sorted = runs.filter(keep).sort((a, b) => time(b) - time(a) || (a.runId < b.runId ? 1 : -1));
  return (reverse ? sorted.reverse() : sorted).map((r) => r.info);
}

/** Checks one query: the whole list, pages of 7, and the count. */
async function check(open: boolean, input: Obj, keep: (r: Run) => boolean, time: (r: Run) => number): Promise<void> {
  const list = open ? 'ListOpenWorkflowExecutions' : 'ListClosedWorkflowExecutions';
  const count = open ? 'CountOpenWorkflowExecutions' : 'CountClosedWorkflowExecutions';
  const want = expected((r) => isOpen(r) === open && keep(r), time);
  const whole = await call(list, { domain, ...input });
  expect(whole.nextPageToken).toBeUndefined();
  expect(whole.executionInfos).toEqual(want);
  expect(await allPages(list, { domain, ...input }, 7)).toEqual(want);
  expect(await allPages(list, { domain, ...input, reverseOrder: true }, 7)).toEqual([...want].reverse());
  expect(await call(count, { domain, ...input })).toEqual({ count: want.length, truncated: false });
}

const ALL = { startTimeFilter: { oldestDate: 0 } };
const FILTERS: [string, Obj, (r: Run) => boolean][] = [
  ['no filter', {}, () => true],
  ...TYPES.map((t): [string, Obj, (r: Run) => boolean] => [`type ${t.name}@${t.version}`, { typeFilter: t }, (r) => r.type === t]),
  ['type name Alpha (any version)', { typeFilter: { name: 'Alpha' } }, (r) => r.type.name === 'Alpha'],
  ['type name unknown', { typeFilter: { name: 'Gamma' } }, () => false],
  ...TAGS.map((tag): [string, Obj, (r: Run) => boolean] => [`tag ${tag}`, { tagFilter: { tag } }, (r) => r.tag === tag]),
  ['workflowId wf-7', { executionFilter: { workflowId: 'wf-7' } }, (r) => r.workflowId === 'wf-7'],
  ['workflowId wf-8', { executionFilter: { workflowId: 'wf-8' } }, (r) => r.workflowId === 'wf-8'],
  ['workflowId of a continued run (two runs)', { executionFilter: { workflowId: CONTINUED } }, (r) => r.workflowId === CONTINUED],
];

describe('the 500 executions', () => {
  it('has runs of every outcome, type and tag', () => {
    for (const o of Object.keys(DECISION).concat('OPEN', 'CANCEL_REQUESTED', 'TIMED_OUT', 'TERMINATED')) expect(runs.filter((r) => r.outcome === o).length).toBeGreaterThan(30);
    for (const r of runs) {
      expect(r.info).toMatchObject({
        executionStatus: isOpen(r) ? 'OPEN' : 'CLOSED', tagList: [r.tag], workflowType: r.type, cancelRequested: r.outcome === 'CANCEL_REQUESTED',
      });
    }
    for (const r of runs.filter((x) => !isOpen(x))) expect(r.info.closeStatus).toBe(r.outcome);
    expect(runs.filter((r) => r.workflowId === CONTINUED).map((r) => r.outcome)).toEqual(['CONTINUED_AS_NEW', 'OPEN']);
  });
});

describe('ListOpenWorkflowExecutions / CountOpenWorkflowExecutions', () => {
  it.each(FILTERS)('%s', async (_label, filter, keep) => {
    await check(true, { ...ALL, ...filter }, keep, startOf);
  });

  it('a start time window, closed on both ends or open-ended', async () => {
    const times = runs.filter(isOpen).map(startOf).sort((a, b) => a - b);
    const [lo, hi] = [times[Math.floor(times.length / 4)]!, times[Math.floor((3 * times.length) / 4)]!];
    await check(true, { startTimeFilter: { oldestDate: lo, latestDate: hi } }, (r) => startOf(r) >= lo && startOf(r) <= hi, startOf);
    await check(true, { startTimeFilter: { oldestDate: lo }, tagFilter: { tag: 'red' } }, (r) => startOf(r) >= lo && r.tag === 'red', startOf);
    await check(true, { startTimeFilter: { oldestDate: hi + 3600 } }, () => false, startOf);
  });
});

describe('ListClosedWorkflowExecutions / CountClosedWorkflowExecutions', () => {
  it.each(FILTERS)('%s, by start time', async (_label, filter, keep) => {
    await check(false, { ...ALL, ...filter }, keep, startOf);
  });

  it.each(FILTERS)('%s, by close time', async (_label, filter, keep) => {
    await check(false, { closeTimeFilter: { oldestDate: 0 }, ...filter }, keep, closeOf);
  });

  it.each(['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT', 'TERMINATED', 'CONTINUED_AS_NEW'])('close status %s', async (status) => {
    await check(false, { ...ALL, closeStatusFilter: { status } }, (r) => r.outcome === status, startOf);
    await check(false, { closeTimeFilter: { oldestDate: 0 }, closeStatusFilter: { status } }, (r) => r.outcome === status, closeOf);
  });

  it('time windows on start and on close time', async () => {
    const closes = runs.filter((r) => !isOpen(r)).map(closeOf).sort((a, b) => a - b);
    const [lo, hi] = [closes[Math.floor(closes.length / 3)]!, closes[Math.floor((2 * closes.length) / 3)]!];
    await check(false, { closeTimeFilter: { oldestDate: lo, latestDate: hi } }, (r) => closeOf(r) >= lo && closeOf(r) <= hi, closeOf);
    await check(false, { closeTimeFilter: { oldestDate: lo }, typeFilter: { name: 'Beta' } }, (r) => closeOf(r) >= lo && r.type.name === 'Beta', closeOf);
    const starts = runs.filter((r) => !isOpen(r)).map(startOf).sort((a, b) => a - b);
    const [s0, s1] = [starts[10]!, starts[starts.length - 10]!];
    await check(false, { startTimeFilter: { oldestDate: s0, latestDate: s1 }, closeStatusFilter: { status: 'FAILED' } },
      (r) => startOf(r) >= s0 && startOf(r) <= s1 && r.outcome === 'FAILED', startOf);
  });

  it('shows executionInfos exactly as DescribeWorkflowExecution does (epoch seconds)', async () => {
    const page = await call('ListClosedWorkflowExecutions', { domain, ...ALL, maximumPageSize: 3 });
    expect(page.executionInfos).toHaveLength(3);
    for (const info of page.executionInfos) {
      expect(info.startTimestamp).toBeGreaterThan(1.6e9);
      expect(info.startTimestamp).toBeLessThan(1e10);
      expect(info.closeTimestamp).toBeGreaterThanOrEqual(info.startTimestamp);
      expect(info.cancelRequested).toBe(false);
    }
  });
});

describe('bad requests', () => {
  const typeFilter = { name: 'Alpha' };
  const tagFilter = { tag: 'red' };
  const executionFilter = { workflowId: 'wf-1' };
  const closeStatusFilter = { status: 'FAILED' };
  const cases: [string, Obj][] = [
    ['ListOpenWorkflowExecutions', {}],
    ['ListOpenWorkflowExecutions', { ...ALL, typeFilter, tagFilter }],
    ['ListOpenWorkflowExecutions', { ...ALL, typeFilter, executionFilter }],
    ['ListOpenWorkflowExecutions', { ...ALL, tagFilter, executionFilter }],
    ['CountOpenWorkflowExecutions', { ...ALL, typeFilter, tagFilter, executionFilter }],
    ['CountOpenWorkflowExecutions', { typeFilter }],
    ['ListClosedWorkflowExecutions', {}],
    ['ListClosedWorkflowExecutions', { closeStatusFilter }],
    ['ListClosedWorkflowExecutions', { ...ALL, closeTimeFilter: { oldestDate: 0 } }],
    ['ListClosedWorkflowExecutions', { ...ALL, closeStatusFilter, typeFilter }],
    ['ListClosedWorkflowExecutions', { ...ALL, closeStatusFilter, executionFilter }],
    ['ListClosedWorkflowExecutions', { ...ALL, closeStatusFilter, tagFilter }],
    ['CountClosedWorkflowExecutions', { closeTimeFilter: { oldestDate: 0 }, typeFilter, tagFilter }],
    ['CountClosedWorkflowExecutions', { ...ALL, closeTimeFilter: { oldestDate: 0 } }],
    ['ListClosedWorkflowExecutions', { ...ALL, closeStatusFilter: { status: 'DONE' } }],
    ['ListOpenWorkflowExecutions', { startTimeFilter: {} }],
    ['ListOpenWorkflowExecutions', { ...ALL, typeFilter: { version: '1' } }],
    ['ListOpenWorkflowExecutions', { ...ALL, executionFilter: { workflowId: 'a:b' } }],
    ['ListOpenWorkflowExecutions', { ...ALL, maximumPageSize: 1001 }],
    ['ListOpenWorkflowExecutions', { ...ALL, nextPageToken: 'not-a-token' }],
    ['ListOpenWorkflowExecutions', { ...ALL, nextPageToken: 'x'.repeat(2049) }],
  ];
  it.each(cases)('%s %j → ValidationException', async (action, input) => {
    await expect(call(action, { domain, ...input })).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('refuses a page token from another query', async () => {
    const p = await call('ListOpenWorkflowExecutions', { domain, ...ALL, maximumPageSize: 2 });
    expect(p.nextPageToken).toBeTruthy();
    const other = [
      { ...ALL, tagFilter },
      { startTimeFilter: { oldestDate: 1 } },
      { ...ALL, reverseOrder: true },
    ];
    for (const input of other) {
      await expect(call('ListOpenWorkflowExecutions', { domain, ...input, nextPageToken: p.nextPageToken })).rejects.toMatchObject({ name: 'ValidationException' });
    }
    await expect(call('ListClosedWorkflowExecutions', { domain, ...ALL, nextPageToken: p.nextPageToken })).rejects.toMatchObject({ name: 'ValidationException' });
    expect((await call('ListOpenWorkflowExecutions', { domain, ...ALL, maximumPageSize: 2, nextPageToken: p.nextPageToken })).executionInfos).toHaveLength(2);
  });

  it.each(['ListOpenWorkflowExecutions', 'ListClosedWorkflowExecutions', 'CountOpenWorkflowExecutions', 'CountClosedWorkflowExecutions'])(
    '%s on an unknown domain → UnknownResourceFault', async (action) => {
      await expect(call(action, { domain: uniqueDomain('nowhere'), ...ALL })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    });
});

describe('the records in AF_VISIBILITY', () => {
  it('load into a fresh index that answers the same as the API', async () => {
    const { nats } = e.node;
    const fresh = new VisibilityIndex();
    const feed = new VisibilityFeed(nats.js, nats.jsm, nats.subjects, pino({ level: 'silent' }), [fresh.sink]);
    await feed.start();
    expect(fresh.size).toBeGreaterThanOrEqual(N);
    try {
      for (const open of [true, false]) {
        const q = { domain, open, by: 'start' as const, oldest: 0 };
        expect(fresh.count(q)).toBe(runs.filter((r) => isOpen(r) === open).length);
        expect(fresh.list(q, { reverse: false, limit: 1000 }).items.map(executionInfoOf)).toEqual(expected((r) => isOpen(r) === open, startOf));
      }
    } finally {
      feed.stop();
    }
  });

  it('are purged with the history when the domain keeps nothing (retention 0)', async () => {
    const d = uniqueDomain('vis-none');
    await e.client.ensureDomain(d, '0');
    await call('RegisterWorkflowType', { domain: d, ...TYPES[0]!, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '60', defaultTaskStartToCloseTimeout: '30' });
    const { runId } = await call('StartWorkflowExecution', { domain: d, workflowId: 'gone', workflowType: TYPES[0], taskList: { name: 'x' } });
    expect((await call('CountOpenWorkflowExecutions', { domain: d, ...ALL })).count).toBe(1);
    const t = await call('PollForDecisionTask', { domain: d, taskList: { name: 'x' }, afPollTimeoutMs: 2000 });
    await call('RespondDecisionTaskCompleted', { taskToken: t.taskToken, decisions: [DECISION.COMPLETED!(runs[0]!)] });
    const { nats } = e.node;
    await until(async () => (await nats.jsm.direct.getMessage(nats.subjects.streams.visibility, { last_by_subj: nats.subjects.visibility(d, runId) }).catch(() => null)) === null);
    expect((await call('CountOpenWorkflowExecutions', { domain: d, ...ALL })).count).toBe(0);
    expect((await call('CountClosedWorkflowExecutions', { domain: d, ...ALL })).count).toBe(0);
    expect((await call('ListClosedWorkflowExecutions', { domain: d, ...ALL })).executionInfos).toEqual([]);
  });
});
