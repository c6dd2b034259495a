import {
  InvalidToken, ListExecutionsCommand, StartExecutionCommand, StopExecutionCommand, type ExecutionListItem, type ExecutionStatus, type SFNClient,
} from '@aws-sdk/client-sfn';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SfnVisibilityIndex } from '../../src/sfn/visibility/sfn-visibility-index.js';
import { VisibilityFeed } from '../../src/visibility/visibility-feed.js';
import { inParallel } from '../helpers/in-parallel.js';
import { machineWithActivity, rejection, startSfnHttpEngine, type SfnHttpEngine } from '../helpers/sfn-http.js';

/*
 * ListExecutions through the AWS SDK, served from the visibility index: 500 executions of every
 * status, every statusFilter, pages of 37, and pages read while executions start and close.
 */

let h: SfnHttpEngine;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  sfn = h.sfn;
}, 30_000);
afterAll(async () => { await h?.stop(); });

/** Choice on the input: Succeed, Fail, or a Task on an activity nobody polls (RUNNING until stopped). */
const routed = (activityArn: string) => ({
  StartAt: 'Route',
  States: {
    Route: {
      Type: 'Choice', Default: 'Work',
      Choices: [{ Variable: '$.outcome', StringEquals: 'succeed', Next: 'Done' }, { Variable: '$.outcome', StringEquals: 'fail', Next: 'Broken' }],
    },
    Done: { Type: 'Succeed' },
    Broken: { Type: 'Fail', Error: 'Planned', Cause: 'the input said so' },
    Work: { Type: 'Task', Resource: activityArn, End: true },
  },
});

interface Known { name: string; arn: string; startDate: number; status: ExecutionStatus }

async function startAll(stateMachineArn: string, names: string[], outcome: (i: number) => string, into: Map<string, Known>): Promise<void> {
  await inParallel(names.map((name, i) => ({ name, i })), 8, async ({ name, i }) => {
    const o = outcome(i);
    const r = await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify({ outcome: o }) }));
    into.set(name, { name, arn: r.executionArn!, startDate: r.startDate!.getTime(), status: o === 'succeed' ? 'SUCCEEDED' : o === 'fail' ? 'FAILED' : 'RUNNING' });
  });
}

async function stop(known: Known): Promise<void> {
  await sfn.send(new StopExecutionCommand({ executionArn: known.arn }));
  known.status = 'ABORTED';
}

/** Newest first, ties by name descending. */
const order = (xs: Iterable<Known>, status?: ExecutionStatus) => [...xs]
  .filter((x) => status === undefined || x.status === status)
  .sort((a, b) => b.startDate - a.startDate || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
  .map((x) => `${x.name} ${x.status}`);

const shown = (items: ExecutionListItem[]) => items.map((x) => `${x.name} ${x.status}`);

/** Every page of a query, following nextToken; `between` runs after each page but the last. */
async function readPages(stateMachineArn: string, statusFilter: ExecutionStatus | undefined, maxResults: number, between?: () => Promise<void>) {
  const pages: ExecutionListItem[][] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter, maxResults, nextToken }));
    pages.push(page.executions!);
    nextToken = page.nextToken;
    if (nextToken) await between?.();
  } while (nextToken);
  return pages;
}

const FILTERS: (ExecutionStatus | undefined)[] = [undefined, 'RUNNING', 'SUCCEEDED', 'FAILED', 'ABORTED', 'TIMED_OUT', 'PENDING_REDRIVE'];

describe('ListExecutions from the visibility index', () => {
  it('500 executions of every status: each statusFilter is exact, pages of 37 concatenate, newest first', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, routed);
    const known = new Map<string, Known>();
    const names = Array.from({ length: 500 }, (_, i) => `x-${String(i).padStart(3, '0')}`);
    // i % 4: 0 SUCCEEDED, 1 FAILED, 2 stays RUNNING, 3 RUNNING then StopExecution (ABORTED).
    await startAll(stateMachineArn, names, (i) => ['succeed', 'fail', 'work', 'work'][i % 4]!, known);
    await inParallel(names.filter((_, i) => i % 4 === 3), 8, (n) => stop(known.get(n)!));
    const counts = Object.fromEntries(FILTERS.map((f) => [f ?? 'all', order(known.values(), f).length]));
    expect(counts).toEqual({ all: 500, RUNNING: 125, SUCCEEDED: 125, FAILED: 125, ABORTED: 125, TIMED_OUT: 0, PENDING_REDRIVE: 0 });

    for (const statusFilter of FILTERS) {
      const want = order(known.values(), statusFilter);
      const whole = await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter, maxResults: 1000 }));
      expect(shown(whole.executions!), `${statusFilter} in one page`).toEqual(want);
      expect(whole.nextToken).toBeUndefined();
      const pages = await readPages(stateMachineArn, statusFilter, 37);
      expect(shown(pages.flat()), `${statusFilter} in pages of 37`).toEqual(want);
      expect(pages.map((p) => p.length)).toEqual(want.length === 0 ? [0] : [...Array(Math.ceil(want.length / 37) - 1).fill(37), want.length % 37 || 37]);
    }
    // The items carry the ExecutionListItem members; stopDate only once closed.
    const all = (await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }))).executions!;
    for (const x of all) {
      const k = known.get(x.name!)!;
      expect({ arn: x.executionArn, sm: x.stateMachineArn, start: x.startDate!.getTime(), stopped: x.stopDate instanceof Date })
        .toEqual({ arn: k.arn, sm: stateMachineArn, start: k.startDate, stopped: k.status !== 'RUNNING' });
    }
    // The records are in AF_VISIBILITY: a fresh index (a node starting) loads them and answers the same.
    const { nats } = h.engine.node;
    const fresh = new SfnVisibilityIndex(Date.now, 90 * 86_400_000);
    const feed = new VisibilityFeed(nats.js, nats.jsm, nats.subjects, pino({ level: 'silent' }), [fresh.sink]);
    await feed.start();
    try {
      const smName = stateMachineArn.slice(stateMachineArn.lastIndexOf(':') + 1);
      for (const status of FILTERS) {
        expect(fresh.list({ stateMachineName: smName, status }, { limit: 1000 }).items.map((x) => `${x.name} ${x.status}`)).toEqual(order(known.values(), status));
      }
    } finally {
      feed.stop();
    }
    // maxResults 0 or none: 100 per page.
    for (const maxResults of [0, undefined]) {
      const page = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults }));
      expect(page.executions).toHaveLength(100);
      expect(page.nextToken).toBeTruthy();
    }
  }, 120_000);

  it('a bad nextToken, or one of another query, is InvalidToken', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, routed);
    const known = new Map<string, Known>();
    await startAll(stateMachineArn, ['a', 'b', 'c'], () => 'succeed', known);
    const first = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1 }));
    expect(first.nextToken).toBeTruthy();
    for (const [statusFilter, nextToken] of [[undefined, 'garbage'], [undefined, Buffer.from('[1,"a","x"]').toString('base64url')], ['SUCCEEDED', first.nextToken!]] as const) {
      const err = await rejection(sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter, nextToken })));
      expect(err).toBeInstanceOf(InvalidToken);
    }
    const other = await machineWithActivity(sfn, routed);
    expect(await rejection(sfn.send(new ListExecutionsCommand({ stateMachineArn: other.stateMachineArn, nextToken: first.nextToken })))).toBeInstanceOf(InvalidToken);
    // The right query goes on where the page ended.
    const next = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 5, nextToken: first.nextToken }));
    expect(shown(next.executions!)).toEqual(order(known.values()).slice(1));
  });

  it('executions started and closed between page reads: the ones there throughout neither repeat nor vanish', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, routed);
    const known = new Map<string, Known>();
    let n = 0;
    const more = (count: number) => startAll(stateMachineArn, Array.from({ length: count }, () => `y-${String(n++).padStart(4, '0')}`), (i) => (i % 3 === 0 ? 'succeed' : 'work'), known);
    await more(200);
    for (const statusFilter of [undefined, 'RUNNING'] as const) {
      const before = new Map([...known].map(([k, x]) => [k, x.status]));
      const stopped = new Set<string>();
      const pages = await readPages(stateMachineArn, statusFilter, 37, async () => {
        await more(6);
        const running = [...known.values()].filter((x) => x.status === 'RUNNING');
        for (let k = 0; k < 4; k++) {
          const x = running[(k * 53 + n) % running.length]!;
          if (x.status !== 'RUNNING') continue;
          await stop(x);
          stopped.add(x.name);
        }
      });
      const names = pages.flat().map((x) => x.name!);
      expect(new Set(names).size, 'no execution twice').toBe(names.length);
      // Those that existed throughout, and (filtered) kept their status: every one, in order.
      const throughout = [...before].filter(([k, s]) => statusFilter === undefined || (s === statusFilter && !stopped.has(k))).map(([k]) => known.get(k)!);
      const want = order(throughout).map((s) => s.split(' ')[0]);
      expect(names.filter((k) => want.includes(k))).toEqual(want);
      expect(stopped.size).toBeGreaterThan(0);
    }
  }, 120_000);
});
