/** Resolves when `p` settles (either way) or after `ms`, whichever comes first; the timer goes with it. */
export function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => { clearTimeout(timer); resolve(); };
    p.then(done, done);
  });
}
