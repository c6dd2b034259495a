/**
 * Executions dropped from memory after a transition (or a rebuild) that could not be stored, to be
 * rebuilt from history in a moment: 1 s, then backing off to 30 s, until the rebuild works, the
 * execution is no longer this node's, or the host stops. Their timers went with them; nobody else
 * would ask for an execution that waits on a timer, so without this it would stay open for good.
 */
export class RebuildLater {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  /** `rebuild(id)` rejects while it cannot be done yet; `onRetry` hears why. */
  constructor(private readonly rebuild: (id: string) => Promise<unknown>, private readonly onRetry: (id: string, err: unknown) => void) {}

  /** Rebuilds `id` after `delayMs` if `mine()` still says so (once: a second call meanwhile changes nothing). */
  schedule(id: string, mine: () => boolean, delayMs = 1000): void {
    if (this.stopped || this.timers.has(id)) return;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      if (this.stopped || !mine()) return;
      this.rebuild(id).catch((err: unknown) => {
        this.onRetry(id, err);
        this.schedule(id, mine, Math.min(delayMs * 2, 30_000));
      });
    }, delayMs);
    timer.unref();
    this.timers.set(id, timer);
  }

  get pending(): number {
    return this.timers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
