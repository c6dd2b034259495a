import type { Logger } from 'pino';
import { retry } from '../protocol/retry.js';
import type { TaskMessage } from '../matching/task-message.js';
import type { TaskQueues } from '../matching/task-queues.js';

/** How long a task enqueue keeps retrying after its transition was persisted. */
const ENQUEUE_RETRY_MS = 30_000;

/**
 * The queued (unstarted) task messages of every execution this node owns, by execution id then task
 * key: a task that starts leaves the ledger, one that dies unstarted (timed out, canceled, its
 * execution closed) has its message removed from AF_TASKS. Kept here, not in the live execution, so
 * it survives the execution's sleep.
 */
export class TaskLedger {
  private readonly seqs = new Map<string, Map<string, number>>();

  constructor(private readonly queues: TaskQueues, private readonly log: Logger) {}

  /**
   * Queues a task whose scheduling is already in history: it must reach the queue, so a failed
   * publish (an R3 stream electing a leader) is retried; the msgID keeps retries from queueing it
   * twice. `again` replaces a message that may still be held for a dead node's poller.
   */
  async enqueue(id: string, taskKey: string, msg: TaskMessage, again = false): Promise<void> {
    const seq = await retry(() => (again ? this.queues.requeue(msg) : this.queues.dispatch(msg)), {
      firstMs: 100, capMs: 2000, forMs: ENQUEUE_RETRY_MS,
      onRetry: (err) => this.log.warn({ err, id, taskKey }, 'task enqueue failed; retrying'),
    });
    if (seq === undefined) return;
    let m = this.seqs.get(id);
    if (!m) { m = new Map(); this.seqs.set(id, m); }
    m.set(taskKey, seq);
  }

  /** The task started: its message is gone from the queue (or goes now), and this node holds it no more. */
  started(id: string, taskKey: string): void {
    const seq = this.take(id, taskKey);
    if (seq !== undefined) this.queues.unhold(seq);
  }

  private take(id: string, taskKey: string): number | undefined {
    const m = this.seqs.get(id);
    const seq = m?.get(taskKey);
    m?.delete(taskKey);
    if (m?.size === 0) this.seqs.delete(id);
    return seq;
  }

  /** The task died unstarted: its queued message is removed. */
  async drop(id: string, taskKey: string): Promise<void> {
    const seq = this.take(id, taskKey);
    if (seq !== undefined) await this.queues.remove(seq);
  }

  /** The execution closed: every queued message of it is removed. */
  async dropAll(id: string): Promise<void> {
    const m = this.seqs.get(id);
    this.seqs.delete(id);
    for (const seq of m?.values() ?? []) await this.queues.remove(seq);
  }

  /** The execution is no longer this node's: its entries go (its messages stay for the next owner). */
  forget(id: string): void {
    for (const seq of this.seqs.get(id)?.values() ?? []) this.queues.unhold(seq);
    this.seqs.delete(id);
  }
}
