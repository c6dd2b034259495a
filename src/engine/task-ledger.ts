import { HeldTasks } from '../matching/held-tasks.js';
import type { TaskMessage } from '../matching/task-message.js';
import type { TaskQueues } from '../matching/task-queues.js';

/**
 * The queued (unstarted) task messages of every execution this node owns, by execution id then task
 * key: a task that starts leaves the ledger, one that dies unstarted (timed out, canceled, its
 * execution closed) has its message removed from AF_TASKS. Kept here, not in the live execution, so
 * it survives the execution's sleep.
 */
export class TaskLedger {
  private readonly keys = new Map<string, Map<string, string>>();

  constructor(private readonly queues: TaskQueues) {}

  /**
   * Queues a task whose scheduling is already in history (after a rebuild too: a message an
   * earlier owner left for it is replaced when it is published, see HeldTasks).
   */
  enqueue(id: string, taskKey: string, msg: TaskMessage): void {
    let m = this.keys.get(id);
    if (!m) { m = new Map(); this.keys.set(id, m); }
    m.set(taskKey, HeldTasks.keyOf(msg));
    this.queues.dispatch(msg);
  }

  private take(id: string, taskKey: string): string | undefined {
    const m = this.keys.get(id);
    const key = m?.get(taskKey);
    m?.delete(taskKey);
    if (m?.size === 0) this.keys.delete(id);
    return key;
  }

  /** The task started (a poll on any node): it is handed out no more. */
  started(id: string, taskKey: string): void {
    const key = this.take(id, taskKey);
    if (key !== undefined) this.queues.done(key);
  }

  /** The task died unstarted: its queued message is removed. */
  drop(id: string, taskKey: string): void {
    this.started(id, taskKey);
  }

  /** The execution closed: every queued message of it is removed. */
  dropAll(id: string): void {
    const m = this.keys.get(id);
    this.keys.delete(id);
    for (const key of m?.values() ?? []) this.queues.done(key);
  }

  /** The execution is no longer this node's: its entries go (its messages stay for the next owner). */
  forget(id: string): void {
    for (const key of this.keys.get(id)?.values() ?? []) this.queues.forget(key);
    this.keys.delete(id);
  }
}
