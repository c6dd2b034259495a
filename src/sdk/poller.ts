/**
 * A pool of long-poll loops with graceful stop: `stop()` ends the loops after their current poll
 * and waits for every task already received to be handled.
 */
export class PollerPool {
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly concurrency: number, private readonly once: () => Promise<void>,
    private readonly onError: (e: unknown) => void) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Array.from({ length: this.concurrency }, () => this.loop());
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        await this.once();
      } catch (e) {
        if (!this.running) break;
        this.onError(e);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}
