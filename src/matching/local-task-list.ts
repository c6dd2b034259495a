import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { TaskMessage } from './task-queues.js';

/** A task handed to a poller: straight from its owner (sync match) or pulled from JetStream. */
export interface Delivery {
  task: TaskMessage;
  msg?: JsMsg;
}

interface Waiter {
  resolve(d: Delivery | null): void;
  timer: NodeJS.Timeout;
}

const FEED_EXPIRES_MS = 10_000;
/** How long a damaged task message waits before it is offered (and recognized) again. */
const DAMAGED_REDELIVERY_MS = 10 * 60_000;
/** Concurrent pulls per task list and node: a backlog drains this many tasks per round trip. */
const MAX_FEEDERS = 16;

/**
 * The pollers of one task list waiting on this node. A task scheduled on this node goes to the
 * longest-waiting poller directly (no JetStream round trip); while pollers wait, one feeder pull
 * brings them the tasks that were queued in JetStream when nobody was waiting (or on other nodes).
 */
export class LocalTaskList {
  private readonly waiters: Waiter[] = [];
  private feeders = 0;

  /**
   * `read` decodes a pulled message; undefined for a damaged one (quarantined). That one is put back
   * with a long delay instead of acked (a work queue would delete it), so it stays for the operator.
   */
  constructor(private readonly consumer: () => Promise<Consumer>, private readonly onError: (e: unknown) => void,
    private readonly read: (msg: JsMsg) => TaskMessage | undefined) {}

  get waiting(): number {
    return this.waiters.length;
  }

  /** When the last poller left (epoch ms); 0 while anyone waits or a pull is out. */
  private idleAt = Date.now();

  /** True when nobody waits, no pull is out, and that has been so since before `t`. */
  idleSince(t: number): boolean {
    return this.waiters.length === 0 && this.feeders === 0 && this.idleAt !== 0 && this.idleAt < t;
  }

  private touch(): void {
    this.idleAt = this.waiters.length === 0 && this.feeders === 0 ? Date.now() : 0;
  }

  /** Waits for a task until `deadline` (epoch ms); null when none came. */
  wait(deadline: number, signal?: AbortSignal): Promise<Delivery | null> {
    if (this.closed || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const leave = () => {
        clearTimeout(waiter.timer);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        this.touch();
        resolve(null);
      };
      const waiter: Waiter = {
        resolve: (d) => { signal?.removeEventListener('abort', leave); resolve(d); },
        timer: setTimeout(leave, Math.max(0, deadline - Date.now())),
      };
      // A poller that went away leaves the queue at once, so no task is offered to it.
      signal?.addEventListener('abort', leave, { once: true });
      this.waiters.push(waiter);
      this.touch();
      this.feed();
    });
  }

  /** Hands a task to a waiting poller; false when nobody waits here. */
  offer(d: Delivery): boolean {
    const w = this.waiters.shift();
    if (!w) return false;
    clearTimeout(w.timer);
    this.touch();
    w.resolve(d);
    return true;
  }

  /** Keeps one pull in flight per waiting poller, up to MAX_FEEDERS. */
  private feed(): void {
    if (this.feeders >= Math.min(this.waiters.length, MAX_FEEDERS)) return;
    this.feeders++;
    this.idleAt = 0;
    void (async () => {
      try {
        const consumer = await this.consumer();
        while (this.waiters.length > 0 && this.feeders <= Math.min(this.waiters.length, MAX_FEEDERS)) {
          const msg = await consumer.next({ expires: FEED_EXPIRES_MS });
          if (!msg) continue;
          const task = this.read(msg);
          if (!task) { msg.nak(DAMAGED_REDELIVERY_MS); continue; }
          if (!this.offer({ task, msg })) msg.nak();
        }
      } catch (e) {
        this.onError(e);
        await new Promise((r) => setTimeout(r, 250));
      } finally {
        this.feeders--;
        this.touch();
      }
      this.feed();
    })();
  }

  /** Ends every wait at once (shutdown). */
  private closed = false;

  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
  }
}
