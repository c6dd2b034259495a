import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { encode } from '../protocol/codec.js';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
import type { Subjects } from '../nats/subjects.js';
import { LocalTaskList, type Delivery } from './local-task-list.js';
import { TaskLanes } from './task-lanes.js';
import { HeldTasks } from './held-tasks.js';
import type { TaskMessage } from './task-message.js';

/** Default AF_TASK_CONSUMER_IDLE_MS: a task list's consumer goes this long after its last poll. */
export const DEFAULT_CONSUMER_IDLE_MS = 300_000;

/**
 * Task lists (ARCHITECTURE decision 7): a task whose history is persisted goes straight to a
 * poller waiting on this node, or else is held here for this node's next poller and, when another
 * node's pollers ask or it waited HOLD_MAX_MS, put in the JetStream work queue AF_TASKS (one subject
 * and durable pull consumer per task list and priority, see TaskLanes, HeldTasks), where any
 * node's pollers pull it, highest priority first. Starting a task is the owner's decision; a stale
 * task is dropped (acked away) and the poll goes on.
 */
export class TaskQueues {
  private readonly lists = new Map<string, LocalTaskList>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly held: HeldTasks;

  /**
   * `consumerIdleMs`: a task list's durable consumers (one per priority) exist only while pollers
   * take tasks through them. One is made by the first pull of its priority and removed by the
   * server (`inactive_threshold`) this long after the last pull ended on any node; this node
   * forgets its own copy after half of it. Counting, enqueueing and waiting on an empty list need
   * no consumer, so names nobody takes tasks from leave nothing behind.
   */
  constructor(private readonly nc: NatsConnection, private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly s: Subjects,
    private readonly onError: (e: unknown) => void = () => undefined, private readonly quarantine: Quarantine = UNREPORTED,
    private readonly consumerIdleMs = DEFAULT_CONSUMER_IDLE_MS) {
    this.held = new HeldTasks(nc, js, jsm, s, () => this.lists.values(), onError);
    this.sweeper = setInterval(() => this.forgetIdle(), Math.max(250, Math.floor(consumerIdleMs / 4)));
    this.sweeper.unref();
  }

  /** Drops the local task lists nobody polled for half the idle time (before the server drops their consumers). */
  private forgetIdle(): void {
    const before = Date.now() - this.consumerIdleMs / 2;
    for (const [k, l] of this.lists) {
      if (!l.idleSince(before)) continue;
      this.lists.delete(k);
      this.held.drop(l);
      l.forget();
    }
  }

  private static key(domain: string, kind: 'd' | 'a', taskList: string): string {
    return `${domain}\u0000${kind}\u0000${taskList}`;
  }

  /**
   * Delivers a newly scheduled task of an execution this node owns: to a local waiting poller when
   * there is one, else it is held here for the next one, and reaches JetStream (for any node's
   * pollers) when another node asks for it or after HOLD_MAX_MS (see HeldTasks). The task's key
   * (HeldTasks.keyOf) names it in `done` and `forget`.
   */
  dispatch(t: TaskMessage): void {
    if (this.lists.get(TaskQueues.key(t.domain, t.kind, t.taskList))?.offer({ task: t })) return;
    if (!this.closed) this.held.hold(this.list(t.domain, t.kind, t.taskList), t);
  }

  /** Task `key` started (on any node) or died unstarted: not handed out here again, its message removed. */
  done(key: string): void {
    this.held.done(key);
  }

  /** Task `key`'s execution is no longer this node's: forgotten here (its message stays for the next owner). */
  forget(key: string): void {
    this.held.forget(key);
  }

  /** Publishes a task to JetStream now, as a node that does not hold it (tests and tools). */
  async enqueue(t: TaskMessage): Promise<number> {
    return (await this.js.publish(this.s.taskLane(t.domain, t.kind, t.taskList, t.priority ?? 0), encode(t), { msgID: HeldTasks.keyOf(t) })).seq;
  }

  private list(domain: string, kind: 'd' | 'a', taskList: string): LocalTaskList {
    const k = TaskQueues.key(domain, kind, taskList);
    let l = this.lists.get(k);
    if (!l) {
      const lanes = new TaskLanes(this.nc, this.js, this.jsm, this.s, domain, kind, taskList, this.consumerIdleMs);
      l = new LocalTaskList(lanes, this.onError, (m) => this.quarantine.tryDecode<TaskMessage>('task', m.data, { stream: this.s.streams.tasks, subject: m.subject, seq: m.seq }),
        { domain, kind, taskList });
      const list = l;
      l.onStarving = () => this.held.ask(list, true);
      if (this.closed) l.close();
      this.lists.set(k, l);
    }
    return l;
  }

  /** A delivery this poller cannot use goes to the next poller (or back to JetStream). */
  private async giveBack(d: Delivery): Promise<void> {
    // A held task goes back to the tasks held here, first.
    if (d.held !== undefined) {
      if (!this.closed) this.held.hold(this.list(d.task.domain, d.task.kind, d.task.taskList), d.task, true);
      return;
    }
    if (d.msg) {
      d.msg.nak();
      this.lists.get(TaskQueues.key(d.task.domain, d.task.kind, d.task.taskList))?.recheck();
      return;
    }
    this.dispatch(d.task);
  }

  /**
   * Long-polls a task list until `deadline` (epoch ms). Each task is offered to `start`; a task that
   * is no longer startable (timed out, canceled, already started) answers null and is dropped.
   */
  async poll<T>(domain: string, kind: 'd' | 'a', taskList: string, deadline: number,
    start: (t: TaskMessage) => Promise<T | null>, signal?: AbortSignal): Promise<T | null> {
    const stillWanted = () => !signal?.aborted;
    while (stillWanted() && Date.now() < deadline) {
      // Looked up each round: an idle list may have been forgotten while a task was being started.
      const d = await this.list(domain, kind, taskList).wait(deadline, signal);
      if (!d) return null;
      // A held task's message (if it was published) goes at once, so no other node's poll takes it now.
      if (d.held !== undefined) this.held.done(d.held);
      if (!stillWanted()) { await this.giveBack(d); return null; }
      let result: T | null;
      try {
        result = await start(d.task);
      } catch (e) {
        await this.giveBack(d);
        throw e;
      }
      d.msg?.ack();
      if (result !== null) return result;
    }
    return null;
  }

  /**
   * Count of tasks waiting for a task list: the work queue's messages on its subjects (pending plus
   * handed out, not yet acked) and those held here that the stream did not count (see
   * HeldTasks.notCountedBy). Exact on one node; on several, a task another node holds counts once
   * it is published (within HOLD_MAX_MS; AWS calls its count approximate). Needs no consumer, so
   * counting makes none.
   */
  async pending(domain: string, kind: 'd' | 'a', taskList: string): Promise<number> {
    const { counts, storedThrough } = await TaskLanes.counts(this.jsm, this.s, domain, kind, taskList);
    let n = 0;
    for (const c of counts.values()) n += c;
    const l = this.lists.get(TaskQueues.key(domain, kind, taskList));
    return l ? n + await this.held.notCountedBy(l, storedThrough) : n;
  }

  /** Task lists this node keeps locally (pollers waiting now or recently). */
  get localLists(): number {
    return this.lists.size;
  }

  /** Polls waiting on this node, by kind (metrics). */
  waitingPolls(): Record<'d' | 'a', number> {
    const n = { d: 0, a: 0 };
    for (const [k, l] of this.lists) n[k.split('\u0000')[1] as 'd' | 'a'] += l.waiting;
    return n;
  }

  private closed = false;

  /** Shutdown: every waiting poll answers empty now, and later polls answer empty at once. */
  close(): void {
    this.closed = true;
    this.held.close();
    clearInterval(this.sweeper);
    for (const l of this.lists.values()) l.close();
  }
}
