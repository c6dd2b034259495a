import { describe, expect, it } from 'vitest';
import { backoffMs, retry } from '../../src/protocol/retry.js';

describe('retry', () => {
  it('retries until the call succeeds', async () => {
    let n = 0;
    const got = await retry(async () => { if (++n < 3) throw new Error('flaky'); return n; }, { firstMs: 1, capMs: 2, attempts: 5 });
    expect(got).toBe(3);
  });

  it('throws the last failure once the tries are spent', async () => {
    let n = 0;
    await expect(retry(async () => { n++; throw new Error(`fail ${n}`); }, { firstMs: 1, capMs: 1, attempts: 3 })).rejects.toThrow('fail 3');
    expect(n).toBe(3);
  });

  it('throws at once a failure that is not retryable', async () => {
    let n = 0;
    await expect(retry(async () => { n++; throw new Error('final'); }, { firstMs: 1, capMs: 1, attempts: 5, retryable: () => false })).rejects.toThrow('final');
    expect(n).toBe(1);
  });

  it('keeps trying for the time bound when the tries are spent', async () => {
    let n = 0;
    const t0 = Date.now();
    await expect(retry(async () => { n++; throw new Error('down'); }, { firstMs: 5, capMs: 10, attempts: 1, forMs: 100 })).rejects.toThrow('down');
    expect(n).toBeGreaterThan(3);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('makes its last try only once the time bound has passed', async () => {
    let clock = 0;
    const tries: number[] = [];
    // A clock that moves 300 ms per try (the 200 ms waits do not move it): the try at 900 must still come.
    await expect(retry(async () => { tries.push(clock); clock += 300; throw new Error('down'); },
      { firstMs: 200, capMs: 200, jitter: 0, attempts: 1, forMs: 1000, now: () => clock })).rejects.toThrow('down');
    expect(tries).toEqual([0, 300, 600, 900]);
    expect(tries.at(-1)! + 300).toBeGreaterThanOrEqual(1000);
  });

  it('backs off exponentially to the cap, with jitter at most the given fraction', () => {
    for (let i = 0; i < 100; i++) {
      const w1 = backoffMs({ firstMs: 100, capMs: 1000, jitter: 0.5 }, 1);
      expect(w1).toBeGreaterThanOrEqual(100);
      expect(w1).toBeLessThanOrEqual(150);
      const w10 = backoffMs({ firstMs: 100, capMs: 1000, jitter: 0.5 }, 10);
      expect(w10).toBeGreaterThanOrEqual(1000);
      expect(w10).toBeLessThanOrEqual(1500);
    }
    expect(new Set(Array.from({ length: 20 }, () => backoffMs({ firstMs: 100, capMs: 1000 }, 3))).size).toBeGreaterThan(1);
  });

  it('stops waiting when its signal aborts, with no further try', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const t0 = Date.now();
    let n = 0;
    await expect(retry(async () => { n++; throw new Error(`x${n}`); }, { firstMs: 5000, capMs: 5000, signal: ac.signal })).rejects.toThrow('x1');
    expect(n).toBe(1);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
