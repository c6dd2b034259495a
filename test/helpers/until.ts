/**
 * Poll `cond` until it returns true (or a promise resolving to true).
 * Throws a descriptive error after `timeoutMs` (default 10 s), polling every
 * `intervalMs` (default 20 ms). Errors thrown by `cond` are treated as "not yet"
 * and the last one is reported on timeout.
 */
export async function until(
  cond: () => boolean | Promise<boolean>,
  opts: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 20;
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      if (await cond()) return;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) {
      const what = opts.message ?? 'condition';
      const detail =
        lastError === undefined
          ? ''
          : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`until: timed out after ${timeoutMs} ms waiting for ${what}${detail}`, {
        cause: lastError,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, timeoutMs - elapsed)));
  }
}
