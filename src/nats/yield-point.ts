/**
 * Lets the event loop run between the steps of a long job on the node's one thread (reading a long
 * history, a recovery pass): `await y.maybe()` after each step yields once `everyMs` of work has
 * gone by since the last yield, so no request waits behind the whole job.
 */
export class YieldPoint {
  private since = performance.now();

  constructor(private readonly everyMs = 10) {}

  async maybe(): Promise<void> {
    if (performance.now() - this.since < this.everyMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
