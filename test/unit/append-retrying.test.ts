import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appendRetrying, HistoryConflictError, TransitionTooLargeError } from '../../src/history/history-store.js';

beforeEach(() => { vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }); });
afterEach(() => { vi.useRealTimers(); });

/** Runs appendRetrying over a failing append on the fake clock; returns the tries and the ms they spanned. */
async function failing(err: () => Error): Promise<{ tries: number[]; error: unknown }> {
  const t0 = Date.now();
  const tries: number[] = [];
  const done = appendRetrying(async () => { tries.push(Date.now() - t0); throw err(); }).then(() => undefined, (e: unknown) => e);
  await vi.advanceTimersByTimeAsync(60_000);
  return { tries, error: await done };
}

describe('appendRetrying', () => {
  it('keeps an append that fails for a while going: at least 4 tries and 8 s, then the last failure', async () => {
    let n = 0;
    const { tries, error } = await failing(() => new Error(`store down ${++n}`));
    expect(tries.length).toBeGreaterThanOrEqual(4);
    expect(tries.at(-1)!).toBeGreaterThanOrEqual(8000);
    // Backoff from 50 ms, capped at 1 s (plus at most half again of jitter): no try comes at once.
    const gaps = tries.slice(1).map((t, i) => t - tries[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1500);
    expect((error as Error).message).toBe(`store down ${n}`);
  });

  it('returns the sequence once an append succeeds', async () => {
    let n = 0;
    const got = appendRetrying(async () => { if (++n < 3) throw new Error('no responders'); return 42; });
    await vi.advanceTimersByTimeAsync(5000);
    expect(await got).toBe(42);
    expect(n).toBe(3);
  });

  it('throws a lost fence and a transition too large at once', async () => {
    for (const err of [() => new HistoryConflictError('af.hist.0.d.w.r'), () => new TransitionTooLargeError(2_000_000)]) {
      const { tries, error } = await failing(err);
      expect(tries).toEqual([0]);
      expect(error).toBeInstanceOf(err().constructor);
    }
  });
});
