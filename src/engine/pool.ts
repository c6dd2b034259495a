/** Runs `fn` over `items` with at most `concurrency` calls in flight, in order of start. */
export async function forEachPooled<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}
