/** Bounds on the NATS API requests one node works on at the same time. */
export interface RequestLimits {
  /** Requests one client connection has running (AF_API_MAX_INFLIGHT_PER_CONNECTION, default 32); more wait in its queue. */
  perConnection: number;
  /** Requests of one connection waiting for a slot (AF_API_MAX_QUEUED_PER_CONNECTION, default 1024); more are refused. */
  queuedPerConnection: number;
  /** Long polls one connection holds (they wait rather than work; default 1024). */
  pollsPerConnection: number;
  /** Requests running and polls held on this node, every connection together (AF_API_MAX_INFLIGHT, default 8192). */
  total: number;
}

export const DEFAULT_REQUEST_LIMITS: Readonly<RequestLimits> = Object.freeze({
  perConnection: 32, queuedPerConnection: 1024, pollsPerConnection: 1024, total: 8192,
});

/** How long a stopping node waits for API requests in flight, HTTP and NATS (AF_API_DRAIN_MS). */
export const DEFAULT_API_DRAIN_MS = 5000;

/**
 * The client connection a request comes from, read from its reply subject: the NATS clients answer
 * every request of one connection on `<inbox prefix>.<connection nuid>.<token>`, so everything but the
 * last token names the connection. A reply of two tokens or fewer (`_INBOX.<nuid>`, old-style
 * one-inbox-per-request clients) is its own key.
 */
export function connectionOf(reply: string): string {
  const last = reply.lastIndexOf('.');
  const first = reply.indexOf('.');
  return first >= 0 && last > first ? reply.slice(0, last) : reply;
}

interface Connection {
  running: number;
  polls: number;
  queue: (() => void)[];
}

/**
 * Per client connection, at most `perConnection` requests run at a time and up to
 * `queuedPerConnection` more wait their turn in order; beyond that, or past the node-wide `total`, a
 * request is refused at once (the transport answers ThrottlingException). A flood from one
 * connection then costs the node a few dozen operations at a time and a short answer for the rest,
 * so the HTTP API and every other connection keep being served. Long polls, which hold rather than
 * work, have their own bound.
 */
export class RequestLimiter {
  private readonly conns = new Map<string, Connection>();
  private inflight = 0;
  /** Requests refused so far. */
  refused = 0;

  constructor(private readonly limits: RequestLimits = DEFAULT_REQUEST_LIMITS) {}

  /**
   * Admits a request: resolves with its release once it may run, or undefined (at once) when it is
   * over a bound. `poll`: a long poll.
   */
  admit(reply: string, poll = false): Promise<() => void> | undefined {
    const key = connectionOf(reply);
    let c = this.conns.get(key);
    if (!c) { c = { running: 0, polls: 0, queue: [] }; this.conns.set(key, c); }
    const conn = c;
    const refuse = () => { this.refused++; this.forget(key, conn); return undefined; };
    if (this.inflight >= this.limits.total) return refuse();
    if (poll) {
      if (conn.polls >= this.limits.pollsPerConnection) return refuse();
      conn.polls++;
      this.inflight++;
      return Promise.resolve(this.releaser(() => { conn.polls--; this.inflight--; this.forget(key, conn); }));
    }
    const release = this.releaser(() => {
      this.inflight--;
      const next = conn.queue.shift();
      if (next) { this.inflight++; next(); } else { conn.running--; this.forget(key, conn); }
    });
    if (conn.running < this.limits.perConnection) {
      conn.running++;
      this.inflight++;
      return Promise.resolve(release);
    }
    if (conn.queue.length >= this.limits.queuedPerConnection) return refuse();
    return new Promise((resolve) => conn.queue.push(() => resolve(release)));
  }

  private releaser(fn: () => void): () => void {
    let done = false;
    return () => { if (!done) { done = true; fn(); } };
  }

  private forget(key: string, c: Connection): void {
    if (c.running === 0 && c.polls === 0 && c.queue.length === 0) this.conns.delete(key);
  }

  /** Requests running or held now. */
  get size(): number {
    return this.inflight;
  }
}
