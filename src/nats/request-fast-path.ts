import { RequestOne } from '@nats-io/nats-core/internal';

/**
 * nats.js 3.x (`@nats-io/nats-core` RequestOne): an answered request resolves its promise, then
 * calls `cancel()`, which builds `new RequestError("cancelled")` (a stack trace capture) only to
 * reject the promise it has just resolved, a no-op. Every JetStream publish and direct get is such
 * a request: measured at 4–5 % of an engine node's CPU under load. Here an answered request skips
 * that Error and does the rest of cancel() (stop its timer, leave the mux); errors, timeouts and
 * real cancels go through the library's own code. Applied once, only if the class still has the
 * shape this was written against (a library change makes it a no-op, never a break).
 */
let applied = false;

export function installRequestFastPath(): boolean {
  if (applied) return true;
  const proto = RequestOne.prototype as unknown as {
    resolver?: (err: Error | null, msg: unknown) => void;
    cancel?: (err?: Error) => void;
  };
  const original = proto.resolver;
  if (typeof original !== 'function' || typeof proto.cancel !== 'function') return false;
  proto.resolver = function (this: { timer?: { cancel(): void }; deferred: { resolve(m: unknown): void }; mux: { cancel(r: unknown): void } }, err, msg) {
    if (err) { original.call(this, err, msg); return; }
    this.timer?.cancel();
    this.deferred.resolve(msg);
    this.mux.cancel(this);
  };
  applied = true;
  return true;
}
