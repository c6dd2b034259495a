import { afterEach, describe, expect, it, vi } from 'vitest';
import { settledWithin } from '../../src/protocol/settled-within.js';

describe('settledWithin', () => {
  afterEach(() => { vi.useRealTimers(); });

  it('resolves when the promise settles, fulfilled or rejected, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await settledWithin(Promise.resolve(1), 5000);
    await settledWithin(Promise.reject(new Error('no')), 5000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves after `ms` when the promise is still pending', async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = settledWithin(new Promise(() => undefined), 2000).then(() => { done = true; });
    await vi.advanceTimersByTimeAsync(1999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });
});
