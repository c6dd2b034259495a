import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { Fault } from '../protocol/faults.js';
import { decode, encode } from '../protocol/codec.js';
import type { ServiceContext, Operation } from '../service/context.js';
import type { ReplyGuard } from '../nats/reply-subjects.js';
import { faultToWire, toWire } from '../protocol/wire.js';
import { PARTITIONS_ACTION } from '../protocol/partition-hint.js';
import { DEFAULT_API_DRAIN_MS, RequestLimiter } from './request-limit.js';
import { RequestFailures } from './failures.js';
import { requestDepthFault } from '../protocol/nesting.js';

const QUEUE = 'af-api';
/** Long polls: they hold a request open rather than work, so they have their own bound. */
const HELD_POLLS = new Set(['PollForDecisionTask', 'PollForActivityTask', 'GetActivityTask']);
const THROTTLED = encode(faultToWire(new Fault('ThrottlingException', 'Rate exceeded')));

const isPlainMap = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/**
 * The NATS transport: request/reply on `<prefix>.api.<Action>` in one queue group, msgpack bodies,
 * replies `{ ok }` or `{ fault: { name, message } }`. A request whose reply subject is not a client
 * inbox (see ReplyGuard) is dropped unread: the engine's user could otherwise write its answer anywhere.
 *
 * Partition-aware clients send an execution's requests to `<prefix>.api.<Action>.<p>` instead, which
 * only the owner of partition p serves (servePartition): they pay no owner call to another node.
 * `<prefix>.api.~Partitions` tells them the partition count.
 */
export class NatsApiServer {
  private sub: Subscription | undefined;
  /** The direct subscriptions, by the partition this node owns. */
  private readonly direct = new Map<number, Subscription>();
  /** Where the action begins in an API subject (after `<prefix>.api.`). */
  private readonly head: number;
  private inflight = 0;
  /** Requests in flight by action (named in the log when a drain gives up on them). */
  private readonly running = new Map<string, number>();
  private draining = false;
  private readonly failures: RequestFailures;

  constructor(private readonly nc: NatsConnection, private readonly ctx: ServiceContext,
    private readonly ops: Readonly<Record<string, Operation>>, private readonly log: Logger, private readonly replies: ReplyGuard,
    readonly limiter = new RequestLimiter()) {
    this.head = ctx.subjects.api('').length;
    this.failures = new RequestFailures(log);
  }

  start(): void {
    this.sub = this.subscribe(this.ctx.subjects.apiWildcard());
  }

  /** Serves partition p's direct subject (this node owns p now). */
  servePartition(p: number): void {
    if (this.draining || this.direct.has(p)) return;
    this.direct.set(p, this.subscribe(this.ctx.subjects.apiDirectWildcard(p)));
  }

  /**
   * Stops serving p's direct subject. Drained, not dropped: a request already on its way is served
   * (one owner call further on); one sent later finds no responders and its client uses the generic subject.
   */
  releasePartition(p: number): void {
    const sub = this.direct.get(p);
    this.direct.delete(p);
    sub?.drain().catch(() => undefined);
  }

  private subscribe(subject: string): Subscription {
    // A queue group on the direct subjects too: during a hand-over two nodes may hold one for a
    // moment, and a request must still be served once.
    return this.nc.subscribe(subject, {
      queue: QUEUE,
      callback: (err, m) => {
        if (err || !this.replies.allows(m.subject, m.reply)) return;
        // `<prefix>.api.<Action>` or `<prefix>.api.<Action>.<p>`: the action is the token after `api`.
        const end = m.subject.indexOf('.', this.head);
        const action = m.subject.slice(this.head, end < 0 ? undefined : end);
        if (action === PARTITIONS_ACTION) { m.respond(encode(toWire({ partitions: this.ctx.router.partitions }))); return; }
        // Bounded per client connection (see RequestLimiter): over the bounds, refused at once.
        const admitted = this.limiter.admit(m.reply, HELD_POLLS.has(action));
        if (!admitted) { m.respond(THROTTLED); return; }
        this.inflight++;
        this.running.set(action, (this.running.get(action) ?? 0) + 1);
        void admitted.then(async (release) => {
          try { m.respond(encode(await this.handle(action, m.data))); } finally { release(); }
        }).finally(() => {
          this.inflight--;
          this.running.set(action, this.running.get(action)! - 1);
        });
      },
    });
  }

  private async handle(action: string, data: Uint8Array): Promise<unknown> {
    // One id per request, on every log line of it (operations log through ctx.log).
    const log = this.log.child({ requestId: randomUUID() });
    const t0 = Date.now();
    try {
      if (this.draining) throw new Fault('ThrottlingException', 'node is shutting down', { retryable: true });
      const op = Object.hasOwn(this.ops, action) ? this.ops[action] : undefined;
      if (!op) throw new Fault('UnknownOperationException', `Unknown operation ${action}`);
      let input: unknown;
      try { input = data.length ? decode(data) : {}; } catch { throw new Fault('SerializationException', 'body is not valid msgpack'); }
      // As over HTTP (a JSON object): a plain map, not nil, a scalar, a list, binary or an extension type.
      if (!isPlainMap(input)) throw new Fault('SerializationException', 'body is not a msgpack map');
      const tooDeep = requestDepthFault(input);
      if (tooDeep) throw tooDeep;
      const reply = toWire(await op({ ...this.ctx, log }, input));
      log.debug({ action, ms: Date.now() - t0 }, 'request served');
      return reply;
    } catch (e) {
      return faultToWire(this.failures.answer(e, log, { action, ms: Date.now() - t0 }));
    }
  }

  /** Stops taking new requests and waits (bounded) for the ones in flight. */
  async drain(timeoutMs = DEFAULT_API_DRAIN_MS): Promise<void> {
    this.draining = true;
    this.sub?.unsubscribe();
    for (const p of [...this.direct.keys()]) this.releasePartition(p);
    const until = Date.now() + timeoutMs;
    while (this.inflight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (this.inflight > 0) this.log.warn({ inflight: Object.fromEntries([...this.running].filter(([, n]) => n > 0)) }, 'API drain gave up on requests still in flight');
  }
}
