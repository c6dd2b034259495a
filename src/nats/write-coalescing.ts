import { ProtocolHandler } from '@nats-io/nats-core/internal';

/**
 * nats.js 3.x (`@nats-io/nats-core` ProtocolHandler) flushes its outbound buffer in a microtask
 * after the first command queued into an empty buffer, so every message handler that publishes or
 * replies ends in its own socket write: under load an engine node spent ~15 % of its CPU in
 * `writeBuffer` for writes of one or two commands each. Here the flush waits for `setImmediate`,
 * the end of the event loop's current I/O phase, so every reply and publish made while handling
 * one socket read leaves in one write. A buffer past the library's own pending limit (32 KiB) still
 * flushes inline, `close()` writes what is pending before the socket goes, and a flush the library
 * asks for while disconnected stays the library's no-op. The option cannot be set per connection
 * (the class is shared), so it is installed by the engine's `openNats` and applies to the process.
 * Applied once, only if the class still has the shape this was written against.
 */
interface Handler {
  outbound: { size(): number };
  pendingLimit: number;
  flushPending(): void;
  close(err?: Error): Promise<void>;
  coalescing?: boolean;
}

let applied = false;

export function installWriteCoalescing(): boolean {
  if (applied) return true;
  const proto = ProtocolHandler.prototype as unknown as Handler;
  const flushNow = proto.flushPending;
  const close = proto.close;
  if (typeof flushNow !== 'function' || typeof close !== 'function') return false;
  proto.flushPending = function (this: Handler) {
    if (this.outbound.size() >= this.pendingLimit) { flushNow.call(this); return; }
    if (this.coalescing) return;
    this.coalescing = true;
    setImmediate(() => { this.coalescing = false; flushNow.call(this); });
  };
  proto.close = function (this: Handler, err?: Error) {
    flushNow.call(this);
    return close.call(this, err);
  };
  applied = true;
  return true;
}
