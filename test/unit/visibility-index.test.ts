import { describe, expect, it } from 'vitest';
import { SortedList } from '../../src/visibility/sorted-list.js';
import { VisibilityIndex, type Cursor, type VisibilityQuery } from '../../src/swf/visibility-index.js';
import type { VisibilityRecord } from '../../src/swf/visibility-records.js';
import { rng } from '../helpers/rng.js';

/*
 * The index against a naive model, with enough records to split the sorted lists into many chunks:
 * random starts, closes and removals, then random queries read whole and in random pages.
 */

describe('SortedList', () => {
  it('keeps order through inserts and deletes across chunk splits, and walks ranges both ways', () => {
    const random = rng(1);
    const l = new SortedList<number>((a, b) => a - b);
    const model: number[] = [];
    for (let i = 0; i < 6000; i++) {
      if (model.length > 0 && random() < 0.3) {
        const x = model.splice(Math.floor(random() * model.length), 1)[0]!;
        expect(l.delete(x)).toBe(true);
      } else {
        const x = Math.floor(random() * 2000);
        l.insert(x);
        model.push(x);
      }
    }
    model.sort((a, b) => a - b);
    expect(l.size).toBe(model.length);
    const all = l.range(l.bound(() => false), l.bound(() => true), false);
    expect([...all]).toEqual(model);
    for (let k = 0; k < 50; k++) {
      const lo = Math.floor(random() * 2100) - 50;
      const hi = lo + Math.floor(random() * 800);
      const from = l.bound((x) => x < lo);
      const to = l.bound((x) => x <= hi);
      const want = model.filter((x) => x >= lo && x <= hi);
      expect([...l.range(from, to, false)]).toEqual(want);
      expect([...l.range(from, to, true)]).toEqual([...want].reverse());
      expect(l.count(from, to)).toBe(want.length);
    }
    expect(l.delete(-1)).toBe(false);
  });
});

describe('VisibilityIndex', () => {
  const TYPES = [{ name: 'A', version: '1' }, { name: 'A', version: '2' }, { name: 'B', version: '1' }];
  const STATUSES = ['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT', 'TERMINATED', 'CONTINUED_AS_NEW'] as const;

  it('answers every query like a filter-and-sort over all records, in pages', () => {
    const random = rng(7);
    const index = new VisibilityIndex();
    const model = new Map<string, VisibilityRecord>();
    for (let i = 0; i < 5000; i++) {
      const runId = `r${i}`;
      const rec: VisibilityRecord = {
        domain: i % 7 === 0 ? 'other' : 'd', execution: { workflowId: `w${i % 900}`, runId }, workflowType: TYPES[i % 3]!,
        startTimestamp: 1000 + Math.floor(random() * 3000), executionStatus: 'OPEN', cancelRequested: false,
        tagList: [`t${i % 4}`], version: 2,
      };
      index.apply(rec);
      model.set(runId, rec);
    }
    for (const rec of [...model.values()]) {
      const p = random();
      if (p < 0.5) {
        const closed: VisibilityRecord = {
          ...rec, executionStatus: 'CLOSED', closeStatus: STATUSES[Math.floor(random() * 6)]!,
          closeTimestamp: rec.startTimestamp + Math.floor(random() * 500), version: 5,
        };
        index.apply(closed);
        index.apply(rec); // an older version arriving late changes nothing
        model.set(rec.execution.runId, closed);
      } else if (p < 0.55) {
        index.remove(rec.domain, rec.execution.runId);
        model.delete(rec.execution.runId);
      }
    }
    const filters: VisibilityQuery['filter'][] = [
      undefined, { kind: 'type', name: 'A' }, { kind: 'type', name: 'A', version: '2' }, { kind: 'tag', tag: 't3' },
      { kind: 'execution', workflowId: 'w17' }, { kind: 'status', status: 'FAILED' },
    ];
    for (let k = 0; k < 60; k++) {
      const open = random() < 0.5;
      const by = open || random() < 0.5 ? 'start' : 'close';
      const oldest = 900 + Math.floor(random() * 2500);
      const latest = random() < 0.3 ? undefined : oldest + Math.floor(random() * 2000);
      let filter = filters[Math.floor(random() * filters.length)];
      if (open && filter?.kind === 'status') filter = undefined;
      const q: VisibilityQuery = { domain: 'd', open, by, oldest, latest, filter };
      const t = (r: VisibilityRecord) => (by === 'start' ? r.startTimestamp : r.closeTimestamp!);
      const want = [...model.values()].filter((r) => r.domain === 'd' && (r.executionStatus === 'OPEN') === open && t(r) >= oldest
        && (latest === undefined || t(r) <= latest)
        && (!filter || (filter.kind === 'type' ? r.workflowType.name === filter.name && (!filter.version || r.workflowType.version === filter.version)
          : filter.kind === 'tag' ? r.tagList!.includes(filter.tag) : filter.kind === 'execution' ? r.execution.workflowId === filter.workflowId
            : r.closeStatus === filter.status)))
        .sort((a, b) => t(b) - t(a) || (a.execution.runId < b.execution.runId ? 1 : -1));
      expect(index.count(q)).toBe(want.length);
      for (const reverse of [false, true]) {
        const got: VisibilityRecord[] = [];
        let after: Cursor | undefined;
        const limit = 1 + Math.floor(random() * 300);
        for (;;) {
          const page = index.list(q, { reverse, limit, after });
          got.push(...page.items);
          if (!page.more) break;
          const last = page.items[page.items.length - 1]!;
          after = { t: t(last), id: last.execution.runId };
        }
        expect(got).toEqual(reverse ? [...want].reverse() : want);
      }
    }
    // Retention: everything closed at or before the cutoff leaves the index.
    const cutoff = 2500;
    index.prune('d', cutoff);
    const left = [...model.values()].filter((r) => r.domain === 'd' && r.executionStatus === 'CLOSED' && r.closeTimestamp! > cutoff);
    expect(index.count({ domain: 'd', open: false, by: 'close', oldest: 0 })).toBe(left.length);
  });
});
