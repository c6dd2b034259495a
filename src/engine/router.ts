import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { Fault } from '../protocol/faults.js';
import { retry } from '../protocol/retry.js';
import { decode, encode } from '../protocol/codec.js';
import { partitionOf, type Subjects } from '../nats/subjects.js';
import { faultToWire, fromWire, toWire, type WireReply } from '../protocol/wire.js';
import type { ReplyGuard } from '../nats/reply-subjects.js';
import { isNoResponders } from '../nats/error-causes.js';
import { isNatsUnavailable } from '../nats/unavailable.js';
import type { OwnerHandlers, OwnerOpName, OwnerPayload, OwnerResult } from './owner-ops.js';

/** An owner-side handler as the router holds it (payloads arrive decoded from the wire). */
type Handler = (payload: never) => Promise<unknown>;

/** How the router waits; defaults are the node config's (src/config.ts states how they relate). */
export interface RouterTiming {
  /** How long an owner call on another node may take (it must outlast the longest poll hold). */
  ownerTimeoutMs?: number;
  /** How long a request waits for a partition that has no owner at the moment (a hand-over or failover). */
  noOwnerRetryMs?: number;
}

export const DEFAULT_OWNER_TIMEOUT_MS = 70_000;
export const DEFAULT_NO_OWNER_RETRY_MS = 15_000;

/** Owner calls this node made, by where they ran: `local` in-process, `remote` on another node. */
export interface OwnerCallCounts {
  local: number;
  remote: number;
  /** Remote calls by owner op (which requests still cross nodes). */
  remoteByOp: Record<string, number>;
}

/**
 * Routes execution-scoped work to its partition's owner over `af.part.<p>.<op>`. When this node
 * owns the partition the call is made in-process; the subjects serve callers on other nodes.
 */
export class Router {
  private readonly subs = new Map<number, Subscription>();
  /** Owner-side handlers by op name: each execution kind registers its own (see engine/owner-ops.ts). */
  private readonly handlers = new Map<string, Handler>();
  private readonly ownerTimeoutMs: number;
  private readonly noOwnerRetryMs: number;
  private readonly counts: OwnerCallCounts = { local: 0, remote: 0, remoteByOp: {} };
  /** Told when this node starts or stops serving a partition (the API's direct subjects follow). */
  private readonly watchers: ((p: number, owned: boolean) => void)[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly s: Subjects,
    readonly partitions: number,
    private readonly log: Logger,
    /** Owner calls come from engine nodes: answered only on the engine inbox (never into a stream). */
    private readonly replies: ReplyGuard,
    timing: RouterTiming = {},
  ) {
    this.ownerTimeoutMs = timing.ownerTimeoutMs ?? DEFAULT_OWNER_TIMEOUT_MS;
    this.noOwnerRetryMs = timing.noOwnerRetryMs ?? DEFAULT_NO_OWNER_RETRY_MS;
  }

  /** Adds an execution kind's owner-side ops, served on the partition subjects (names must not clash). */
  register(ops: OwnerHandlers): void {
    for (const [op, fn] of Object.entries(ops) as [string, Handler | undefined][]) {
      if (!fn) continue;
      if (this.handlers.has(op)) throw new Error(`owner op ${op} is already registered`);
      this.handlers.set(op, fn);
    }
  }

  partitionOf(domain: string, workflowId: string): number {
    return partitionOf(domain, workflowId, this.partitions);
  }

  owns(p: number): boolean {
    return this.subs.has(p);
  }

  get owned(): ReadonlySet<number> {
    return new Set(this.subs.keys());
  }

  /** Calls `fn` with every partition this node serves from now on, and each one it stops serving. */
  onOwnership(fn: (p: number, owned: boolean) => void): void {
    this.watchers.push(fn);
    for (const p of this.subs.keys()) fn(p, true);
  }

  /** The owner calls made so far (a copy). */
  ownerCalls(): OwnerCallCounts {
    return { ...this.counts, remoteByOp: { ...this.counts.remoteByOp } };
  }

  /** Runs an owner operation on the partition's owner: in-process when this node owns it, else over NATS. */
  async call<K extends OwnerOpName>(partition: number, op: K, payload: OwnerPayload<K>): Promise<OwnerResult<K>> {
    type T = OwnerResult<K>;
    const found = this.handlers.get(op);
    if (!found) throw new Error(`unknown owner op ${op}`);
    const fn = (p: OwnerPayload<K>) => (found as (p: OwnerPayload<K>) => Promise<T>)(p);
    if (this.owns(partition)) { this.counts.local++; return fn(payload); }
    const data = encode(payload);
    let local = false;
    let counted = false;
    try {
      return await retry(async () => {
        // After a wait the partition may have come to this node.
        if (this.owns(partition)) { local = true; this.counts.local++; return fn(payload); }
        if (!counted) {
          counted = true;
          this.counts.remote++;
          this.counts.remoteByOp[op] = (this.counts.remoteByOp[op] ?? 0) + 1;
        }
        const m = await this.nc.request(this.s.partition(partition, op), data, { timeout: this.ownerTimeoutMs });
        return fromWire(decode<WireReply<T>>(m.data));
      }, {
        // The window is a floor: the last try may come up to one wait (≤ 1.5 s) after it.
        firstMs: 50, capMs: 1000, forMs: this.noOwnerRetryMs,
        // Nobody got the request, so sending it again is safe: the partition is changing hands.
        retryable: (e) => !local && !(e instanceof Fault) && isNoResponders(e),
      });
    } catch (e) {
      if (local || e instanceof Fault) throw e;
      // A temporary failure (503, retried by the SDKs): a hand-over or failover that outlasted the
      // wait, or an owner that did not answer in time.
      if (isNoResponders(e)) throw new Fault('ServiceUnavailable', `partition ${partition} has no owner right now`, { cause: e });
      if (isNatsUnavailable(e)) throw new Fault('ServiceUnavailable', `the owner of partition ${partition} did not answer in time`, { cause: e });
      throw e;
    }
  }

  /** Starts serving a partition this node now owns. */
  serve(p: number): void {
    if (this.subs.has(p)) return;
    const sub: Subscription = this.nc.subscribe(this.s.partitionWildcard(p), {
      callback: (err, m) => {
        if (err || !this.replies.allows(m.subject, m.reply)) return;
        // Arrived while the partition was being released: nobody ran it, the caller retries (503).
        if (this.subs.get(p) !== sub) {
          m.respond(encode(faultToWire(new Fault('ServiceUnavailable', `partition ${p} changed owner`))));
          return;
        }
        const op = m.subject.slice(m.subject.lastIndexOf('.') + 1);
        const fn = this.handlers.get(op);
        void (async () => {
          try {
            if (!fn) throw new Fault('UnknownOperationException', `unknown owner op ${op}`);
            m.respond(encode(toWire(await (fn as (p: unknown) => Promise<unknown>)(decode(m.data)))));
          } catch (e) {
            if (!(e instanceof Fault)) this.log.error({ err: e, op }, 'owner op failed');
            m.respond(encode(faultToWire(e)));
          }
        })();
      },
    });
    this.subs.set(p, sub);
    for (const w of this.watchers) w(p, true);
  }

  release(p: number): void {
    const sub = this.subs.get(p);
    if (sub) for (const w of this.watchers) w(p, false);
    this.subs.delete(p);
    // Drain, not unsubscribe: a request already on its way is answered (retry) instead of being
    // dropped, which left its caller waiting the whole owner timeout (and a stopping node's API drain with it).
    sub?.drain().catch(() => undefined);
  }

  stop(): void {
    for (const p of [...this.subs.keys()]) this.release(p);
  }
}
