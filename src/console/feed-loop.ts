/** What every console feed has: set when its stream went away. */
export interface LoopFeed { detached: boolean }

/**
 * The one loop behind a kind's SSE feeds: every `intervalMs`, one `tick` over all open feeds (never
 * two ticks at once); it sleeps while no feed is open. RunFeeds (SWF) and SfnFeeds use it.
 */
export class FeedLoop<F extends LoopFeed> {
  private readonly feeds = new Set<F>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly tick: (feeds: F[]) => Promise<void>, private readonly intervalMs: number) {}

  get size(): number {
    return this.feeds.size;
  }

  /** Adds a feed; returns what detaches it. */
  add(feed: F): () => void {
    this.feeds.add(feed);
    this.schedule();
    return () => { feed.detached = true; this.feeds.delete(feed); };
  }

  stop(): void {
    for (const f of this.feeds) f.detached = true;
    this.feeds.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.feeds.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run().finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (this.running || this.feeds.size === 0) return;
    this.running = true;
    try {
      await this.tick([...this.feeds]);
    } finally {
      this.running = false;
    }
  }
}
