import { describe, expect, it } from 'vitest';
import type { SfnExecutionStatus } from '../../src/sfn/kind/execution-records.js';
import { rng } from '../helpers/rng.js';
import { SfnVisibilityIndex, type SfnCursor, type SfnListQuery, type SfnVisibilityRecord } from '../../src/sfn/visibility/sfn-visibility-index.js';

/*
 * The Step Functions index against a naive model (filter and sort every record), with enough
 * records per state machine to split its sorted lists into many chunks.
 */

const CLOSED: SfnExecutionStatus[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];
const FILTERS = [undefined, 'RUNNING', ...CLOSED, 'PENDING_REDRIVE'];
const DAY = 86_400_000;

const rec = (sm: string, name: string, startDate: number, status: SfnExecutionStatus = 'RUNNING', stopDate?: number): SfnVisibilityRecord => ({
  executionArn: `arn:aws:states:us-east-1:000000000000:execution:${sm}:${name}`, stateMachineArn: `arn:aws:states:us-east-1:000000000000:stateMachine:${sm}`,
  stateMachineName: sm, name, status, startDate, ...(stopDate === undefined ? {} : { stopDate }),
});

/** Newest first, ties by name descending: what ListExecutions promises. */
const expected = (model: Iterable<SfnVisibilityRecord>, q: SfnListQuery) => [...model]
  .filter((r) => r.stateMachineName === q.stateMachineName && (q.status === undefined || r.status === q.status))
  .sort((a, b) => b.startDate - a.startDate || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
  .map((r) => r.name);

function pages(index: SfnVisibilityIndex, q: SfnListQuery, limit: number, between?: () => void): string[][] {
  const out: string[][] = [];
  let after: SfnCursor | undefined;
  for (;;) {
    const { items, more } = index.list(q, { limit, after });
    out.push(items.map((r) => r.name));
    if (!more) return out;
    const last = items.at(-1)!;
    after = { startDate: last.startDate, name: last.name };
    between?.();
  }
}

describe('SfnVisibilityIndex', () => {
  it('lists like a filter-and-sort over all records, whole and in pages, loaded one by one or in bulk', () => {
    const random = rng(11);
    const now = 10_000_000;
    const index = new SfnVisibilityIndex(() => now, 90 * DAY);
    const bulk = new SfnVisibilityIndex(() => now, 90 * DAY);
    bulk.sink.beginLoad();
    const model = new Map<string, SfnVisibilityRecord>();
    for (let i = 0; i < 6000; i++) {
      const sm = i % 5 === 0 ? 'other' : 'main';
      // Few distinct start dates: many ties, ordered by name.
      const r = rec(sm, `x${(i * 7919) % 6000}`, 1000 + Math.floor(random() * 1500));
      index.apply(r);
      bulk.sink.apply(r as never);
      model.set(`${sm}/${r.name}`, r);
    }
    for (const [k, r] of model) {
      if (random() < 0.6) {
        const closed = rec(r.stateMachineName, r.name, r.startDate, CLOSED[Math.floor(random() * 4)]!, r.startDate + 10);
        index.apply(closed);
        bulk.sink.apply(closed as never);
        // A late copy of the RUNNING record changes nothing.
        index.apply(r);
        bulk.sink.apply(r as never);
        model.set(k, closed);
      }
    }
    bulk.sink.finishLoad();
    expect(index.size).toBe(model.size);
    expect(bulk.size).toBe(model.size);
    for (const stateMachineName of ['main', 'other', 'none']) {
      for (const status of FILTERS) {
        const q = { stateMachineName, status };
        const want = expected(model.values(), q);
        for (const ix of [index, bulk]) {
          expect(ix.list(q, { limit: 1000 }).items.map((r) => r.name)).toEqual(want.slice(0, 1000));
          const paged = pages(ix, q, 37);
          expect(paged.flat()).toEqual(want);
          expect(paged.slice(0, -1).every((p) => p.length === 37)).toBe(true);
        }
      }
    }
  });

  it('pages stay exact while executions start and close between them', () => {
    const random = rng(5);
    let now = 50_000;
    const index = new SfnVisibilityIndex(() => now, 90 * DAY);
    const model = new Map<string, SfnVisibilityRecord>();
    let n = 0;
    const start = () => {
      const r = rec('m', `e${String(n++).padStart(5, '0')}`, now++);
      index.apply(r);
      model.set(r.name, r);
    };
    for (let i = 0; i < 1500; i++) start();
    for (const status of [undefined, 'RUNNING']) {
      const before = new Map([...model].map(([k, r]) => [k, r.status]));
      const changed = new Set<string>();
      const seen = pages(index, { stateMachineName: 'm', status }, 37, () => {
        for (let k = 0; k < 5; k++) start();
        const running = [...model.values()].filter((r) => r.status === 'RUNNING');
        for (let k = 0; k < 8; k++) {
          const r = running[Math.floor(random() * running.length)]!;
          if (r.status !== 'RUNNING') continue;
          const closed = rec('m', r.name, r.startDate, CLOSED[k % 4]!, now++);
          index.apply(closed);
          model.set(r.name, closed);
          changed.add(r.name);
        }
      }).flat();
      // No repeats; every execution that existed throughout (and kept its status, when filtered) is there, in order.
      expect(new Set(seen).size).toBe(seen.length);
      const kept = [...before].filter(([k, s]) => status === undefined || (s === status && !changed.has(k))).map(([k]) => k);
      expect(seen.filter((k) => before.has(k) && (status === undefined || !changed.has(k)))).toEqual(expected([...kept].map((k) => model.get(k)!), { stateMachineName: 'm' }));
    }
  });

  it('forgets closed executions once their retention has run out, and a name taken again replaces the old one', () => {
    let now = 5 * DAY - 1;
    const index = new SfnVisibilityIndex(() => now, DAY);
    index.apply(rec('m', 'old', 1000, 'SUCCEEDED', 2 * DAY));
    index.apply(rec('m', 'newer', 2000, 'FAILED', 4 * DAY));
    index.apply(rec('m', 'open', 3000));
    const names = (status?: string) => index.list({ stateMachineName: 'm', status }, { limit: 100 }).items.map((r) => `${r.name}:${r.status}`);
    expect(names()).toEqual(['open:RUNNING', 'newer:FAILED']);
    now = 5 * DAY; // the newer one's stop date + the retention: gone, as Retention purges it then
    expect(names()).toEqual(['open:RUNNING']);
    expect(names('FAILED')).toEqual([]);
    now = 400 * DAY;
    expect(names('RUNNING')).toEqual(['open:RUNNING']);
    // The purged name starts again: the later start wins over any copy of the old record.
    index.apply(rec('m', 'newer', now));
    index.apply(rec('m', 'newer', 2000, 'FAILED', 4 * DAY));
    expect(names()).toEqual(['newer:RUNNING', 'open:RUNNING']);
    index.remove('m', 'newer');
    expect(names()).toEqual(['open:RUNNING']);
  });
});
