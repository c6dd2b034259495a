/**
 * One load per key at a time: callers asking for a key whose load is in flight share its promise
 * (two requests for a run that is not in memory rebuild it once, not twice).
 */
export class SingleFlight<K, V> {
  private readonly inflight = new Map<K, Promise<V>>();

  run(key: K, load: () => Promise<V>): Promise<V> {
    let p = this.inflight.get(key);
    if (!p) {
      p = load().finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }
}
