/**
 * The one retry loop of the code base (server and SDK alike): exponential backoff from `firstMs` to
 * `capMs`, each wait with up to `jitter` of itself added so that many callers retrying the same
 * outage do not retry in step. It stops at the first success, at a failure `retryable` refuses, or
 * once both `attempts` tries are spent and `forMs` has passed (either bound alone may be given; with
 * neither it retries until `retryable` refuses). The last failure is thrown as it is.
 */
export interface RetryPolicy {
  firstMs: number;
  capMs: number;
  /** Fraction of each wait added at random (0 = none, 0.5 = up to half again). Default 0.5. */
  jitter?: number;
  /** Try at least this many times. */
  attempts?: number;
  /** Keep trying for at least this long (ms, from the first try). */
  forMs?: number;
  /** Whether a failure may be retried; default: every failure. `attempt` counts from 1. */
  retryable?: (err: unknown, attempt: number) => boolean;
  /** Called before each wait (a log line, say). */
  onRetry?: (err: unknown, attempt: number, waitMs: number) => void;
  /** Ends the waiting early: the last failure is thrown at once. */
  signal?: AbortSignal;
  /** The clock the time bound reads (tests); default Date.now. */
  now?: () => number;
}

/** The wait before try `attempt + 1` (attempt counts from 1). */
export function backoffMs(p: Pick<RetryPolicy, 'firstMs' | 'capMs' | 'jitter'>, attempt: number): number {
  const base = Math.min(p.capMs, p.firstMs * 2 ** Math.min(attempt - 1, 30));
  return base + Math.random() * base * (p.jitter ?? 0.5);
}

export async function retry<T>(fn: (attempt: number) => Promise<T>, p: RetryPolicy): Promise<T> {
  const now = p.now ?? Date.now;
  const giveUpAt = p.forMs === undefined ? undefined : now() + p.forMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (p.retryable && !p.retryable(e, attempt)) throw e;
      const wait = backoffMs(p, attempt);
      const triesLeft = p.attempts !== undefined && attempt < p.attempts;
      // `forMs` is a floor, as documented: a try that fails before it is over is followed by another.
      const timeLeft = giveUpAt !== undefined && now() < giveUpAt;
      const unbounded = p.attempts === undefined && giveUpAt === undefined;
      if (!(triesLeft || timeLeft || unbounded) || p.signal?.aborted) throw e;
      p.onRetry?.(e, attempt, wait);
      await sleep(wait, p.signal);
      if (p.signal?.aborted) throw e;
    }
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() { clearTimeout(t); signal?.removeEventListener('abort', done); resolve(); }
    signal?.addEventListener('abort', done, { once: true });
  });
}
