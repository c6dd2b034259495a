import type { NatsConnection } from '@nats-io/transport-node';
import { decode, encode } from '../protocol/codec.js';
import { PARTITIONS_ACTION, partitionHint } from '../protocol/partition-hint.js';
import { fromWire, type WireReply } from '../protocol/wire.js';

/** How long the client waits before asking again for the partition count when no engine answered. */
const RETRY_MS = 5_000;
const ASK_TIMEOUT_MS = 5_000;

/**
 * Where a partition-aware client sends an execution's request: `<prefix>.api.<Action>.<p>`, which
 * only the owner of partition p serves. The client asks the engine its partition count once, in the
 * background (no call waits for it: until it is known, requests go to any node); an engine that does
 * not know the question (an older one) leaves the client on the generic subjects for good.
 */
export class PartitionHints {
  private partitions: number | undefined;
  private asking = false;
  private askedAt = -Infinity;
  private unsupported = false;

  constructor(private readonly nc: NatsConnection, private readonly prefix: string) {
    this.ask();
  }

  /** The owner's subject for this request, or undefined: send it to any node. */
  subject(action: string, input: Record<string, unknown>): string | undefined {
    if (this.partitions === undefined) { this.ask(); return undefined; }
    const p = partitionHint(action, input, this.partitions);
    return p === undefined ? undefined : `${this.prefix}.api.${action}.${p}`;
  }

  private ask(): void {
    if (this.asking || this.unsupported || this.nc.isClosed() || Date.now() - this.askedAt < RETRY_MS) return;
    this.asking = true;
    this.askedAt = Date.now();
    let asked: Promise<{ data: Uint8Array }>;
    // A connection closing or draining may refuse the request at once: the client just stays on the generic subjects.
    try { asked = this.nc.request(`${this.prefix}.api.${PARTITIONS_ACTION}`, encode({}), { timeout: ASK_TIMEOUT_MS }); } catch { this.asking = false; return; }
    asked.then((m) => {
      const reply = decode<WireReply<{ partitions?: unknown }>>(m.data);
      if ('fault' in reply) { this.unsupported = true; return; }
      const n = fromWire(reply).partitions;
      if (typeof n === 'number' && Number.isInteger(n) && n > 0) this.partitions = n;
      else this.unsupported = true;
    }, () => undefined).finally(() => { this.asking = false; });
  }
}
