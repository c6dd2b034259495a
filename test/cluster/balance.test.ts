import { describe, expect, it } from 'vitest';
import { planBalance, type LeaseView } from '../../src/cluster/balance.js';

const leases = (owners: Record<number, string>): LeaseView[] => Object.entries(owners).map(([p, node]) => ({ partition: Number(p), node }));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Runs every node's plan in turn (takes win in order) until nothing changes: the steady state. */
function settle(partitions: number, nodes: string[], start: Record<number, string> = {}): Record<number, string> {
  const owners: Record<number, string> = { ...start };
  for (let round = 0; round < 10; round++) {
    let changed = false;
    for (const self of nodes) {
      const plan = planBalance({ partitions, self, nodes, leases: leases(owners) });
      for (const p of plan.give) { delete owners[p]; changed = true; }
      for (const p of plan.take) if (owners[p] === undefined) { owners[p] = self; changed = true; }
    }
    if (!changed) return owners;
  }
  throw new Error('no steady state after 10 rounds');
}
const counts = (owners: Record<number, string>) => Object.values(owners).reduce<Record<string, number>>((c, n) => ({ ...c, [n]: (c[n] ?? 0) + 1 }), {});

describe('planBalance', () => {
  it('a lone node takes every partition', () => {
    const plan = planBalance({ partitions: 16, self: 'a', nodes: ['a'], leases: [] });
    expect(plan.target).toBe(16);
    expect([...plan.take].sort((x, y) => x - y)).toEqual(range(16));
    expect(plan.give).toEqual([]);
  });

  it('three nodes settle on ceil(P/N) each at most and own every partition', () => {
    const owners = settle(16, ['a', 'b', 'c']);
    expect(Object.keys(owners).length).toBe(16);
    for (const n of Object.values(counts(owners))) expect(n).toBeLessThanOrEqual(6);
    expect(Object.values(counts(owners)).reduce((x, y) => x + y)).toBe(16);
  });

  it('a node joining makes the others hand over their surplus, and takes it', () => {
    const all = Object.fromEntries(range(16).map((p) => [p, 'a']));
    const plan = planBalance({ partitions: 16, self: 'a', nodes: ['a', 'b'], leases: leases(all) });
    expect(plan.target).toBe(8);
    expect(plan.give).toHaveLength(8);
    expect(plan.take).toEqual([]);
    const owners = settle(16, ['a', 'b'], all);
    expect(counts(owners)).toEqual({ a: 8, b: 8 });
  });

  it('the partitions of a dead node (expired leases: node undefined) go to the survivors', () => {
    const owners = settle(16, ['a', 'b', 'c']);
    const survivors: Record<number, string> = Object.fromEntries(Object.entries(owners).filter(([, n]) => n !== 'c'));
    const after = settle(16, ['a', 'b'], survivors);
    expect(Object.keys(after).length).toBe(16);
    expect(counts(after)).toEqual({ a: 8, b: 8 });
    // Survivors keep what they had: only the dead node's partitions moved.
    for (const [p, n] of Object.entries(survivors)) expect(after[Number(p)]).toBe(n);
  });

  it('takes nothing held by live nodes and never more than its share', () => {
    const owners = Object.fromEntries(range(10).map((p) => [p, p % 2 ? 'a' : 'b']));
    const plan = planBalance({ partitions: 16, self: 'c', nodes: ['a', 'b', 'c'], leases: leases(owners) });
    expect(plan.target).toBe(6);
    expect(plan.take).toHaveLength(6);
    for (const p of plan.take) expect(p).toBeGreaterThanOrEqual(10);
  });

  it('nodes racing for free partitions prefer different ones (rendezvous order)', () => {
    const a = planBalance({ partitions: 64, self: 'a', nodes: ['a', 'b'], leases: [] }).take.slice(0, 8);
    const b = planBalance({ partitions: 64, self: 'b', nodes: ['a', 'b'], leases: [] }).take.slice(0, 8);
    expect(a.filter((p) => b.includes(p)).length).toBeLessThan(4);
  });

  it('ignores leases of partitions beyond P and counts itself live when missing from membership', () => {
    const plan = planBalance({ partitions: 4, self: 'a', nodes: [], leases: [{ partition: 9, node: 'x' }] });
    expect(plan.target).toBe(4);
    expect(plan.take).toHaveLength(4);
  });
});
