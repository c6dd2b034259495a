/**
 * Executions dropped from memory after a transition (or a rebuild) that could not be stored, to be
 * rebuilt from history in a moment: 1 s, then backing off to 30 s, until the rebuild works, the
 * execution is no longer this node's, or the host stops. Their timers went with them; nobody else
 * would ask for an execution that waits on a timer, so without this it would stay open for good.
 */
export class RebuildLater {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  /** `onRetry` hears why a rebuild did not work yet. */
  constructor(private readonly onRetry: (id: string, err: unknown) => void) {}

  /**
   * Runs `rebuild` (it rejects while it cannot be done yet) after `delayMs` if `mine()` still holds;
   * once per id: a second call meanwhile changes nothing.
   */
  schedule(id: string, rebuild: () => Promise<unknown>, mine: () => boolean, delayMs = 1000): void {
    if (this.stopped || this.timers.has(id)) return;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      if (this.stopped || !mine()) return;
      rebuild().catch((err: unknown) => {
        this.onRetry(id, err);
        this.schedule(id, rebuild, mine, Math.min(delayMs * 2, 30_000));
      });
    }, delayMs);
    timer.unref();
    this.timers.set(id, timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
