import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { encode } from '../protocol/codec.js';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
import type { Subjects } from '../nats/subjects.js';
import { LocalTaskList, type Delivery } from './local-task-list.js';
import { TaskLanes } from './task-lanes.js';
import type { TaskMessage } from './task-message.js';

/** Default AF_TASK_CONSUMER_IDLE_MS: a task list's consumer goes this long after its last poll. */
export const DEFAULT_CONSUMER_IDLE_MS = 300_000;

/**
 * Task lists (ARCHITECTURE decision 7): a task whose history is persisted goes straight to a
 * poller waiting on this node, or else into the JetStream work queue AF_TASKS (one subject and
 * durable pull consumer per task list and priority, see TaskLanes), where any node's pollers pull
 * it, highest priority first. Starting a task is the owner's decision; a stale task is dropped
 * (acked away) and the poll goes on.
 */
export class TaskQueues {
  private readonly lists = new Map<string, LocalTaskList>();
  private readonly sweeper: NodeJS.Timeout;

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
    this.sweeper = setInterval(() => this.forgetIdle(), Math.max(250, Math.floor(consumerIdleMs / 4)));
    this.sweeper.unref();
  }

  /** Drops the local task lists nobody polled for half the idle time (before the server drops their consumers). */
  private forgetIdle(): void {
    const before = Date.now() - this.consumerIdleMs / 2;
    for (const [k, l] of this.lists) {
      if (!l.idleSince(before)) continue;
      this.lists.delete(k);
      l.forget();
    }
  }

  private static key(domain: string, kind: 'd' | 'a', taskList: string): string {
    return `${domain}\u0000${kind}\u0000${taskList}`;
  }

  /**
   * Delivers a newly scheduled task: to a local waiting poller when there is one (returns
   * undefined), else into JetStream (returns the stream sequence, kept to remove the message if
   * the task dies before it is started).
   */
  async dispatch(t: TaskMessage): Promise<number | undefined> {
    if (this.lists.get(TaskQueues.key(t.domain, t.kind, t.taskList))?.offer({ task: t })) return undefined;
    return this.held(t, await this.enqueue(t));
  }

  /**
   * Where each held task is (see LocalTaskList.hold): a task this node queued is also kept here
   * for this node's next poller, so under load most tasks start on their owner, not through a
   * poll on another node that must ask the owner.
   */
  private readonly holders = new Map<number, { list: LocalTaskList; priority: number }>();

  private held(t: TaskMessage, seq: number): number {
    if (this.closed) return seq;
    const list = this.list(t.domain, t.kind, t.taskList);
    this.holders.set(seq, { list, priority: t.priority ?? 0 });
    list.hold(seq, t);
    return seq;
  }

  /** Message `seq` is no longer this node's to hand out (its task started anywhere, died, or moved away). */
  unhold(seq: number): void {
    const h = this.holders.get(seq);
    if (!h) return;
    this.holders.delete(seq);
    h.list.unhold(seq, h.priority);
  }

  async enqueue(t: TaskMessage): Promise<number> {
    return (await this.publish(t, TaskQueues.msgID(t))).seq;
  }

  private static msgID(t: TaskMessage): string {
    return `${t.runId}:${t.kind}:${t.scheduledEventId}`;
  }

  private publish(t: TaskMessage, msgID: string) {
    return this.js.publish(this.s.taskLane(t.domain, t.kind, t.taskList, t.priority ?? 0), encode(t), { msgID });
  }

  /**
   * Queues an unstarted task again after its run was rebuilt (a crashed owner). Its first message
   * may still be in JetStream, handed to a poller of the dead node and so held until ack_wait
   * (30 s) runs out, and the msgID would swallow a plain re-publish: so when the publish is a
   * duplicate, that message is deleted and a fresh copy queued.
   */
  async requeue(t: TaskMessage): Promise<number | undefined> {
    if (this.lists.get(TaskQueues.key(t.domain, t.kind, t.taskList))?.offer({ task: t })) return undefined;
    const ack = await this.publish(t, TaskQueues.msgID(t));
    if (!ack.duplicate) return this.held(t, ack.seq);
    await this.remove(ack.seq);
    return this.held(t, (await this.publish(t, `${TaskQueues.msgID(t)}:${randomBytes(6).toString('base64url')}`)).seq);
  }

  async remove(seq: number): Promise<void> {
    this.unhold(seq);
    await this.jsm.streams.deleteMessage(this.s.streams.tasks, seq, false).catch(() => false);
  }

  private list(domain: string, kind: 'd' | 'a', taskList: string): LocalTaskList {
    const k = TaskQueues.key(domain, kind, taskList);
    let l = this.lists.get(k);
    if (!l) {
      const lanes = new TaskLanes(this.nc, this.js, this.jsm, this.s, domain, kind, taskList, this.consumerIdleMs);
      l = new LocalTaskList(lanes, this.onError, (m) => this.quarantine.tryDecode<TaskMessage>('task', m.data, { stream: this.s.streams.tasks, subject: m.subject, seq: m.seq }));
      if (this.closed) l.close();
      this.lists.set(k, l);
    }
    return l;
  }

  /** A delivery this poller cannot use goes to the next poller (or back to JetStream). */
  private async giveBack(d: Delivery): Promise<void> {
    // A held task's message was removed when it was handed out: queue it afresh.
    if (d.seq !== undefined) {
      await this.requeue(d.task);
      return;
    }
    if (d.msg) {
      d.msg.nak();
      this.lists.get(TaskQueues.key(d.task.domain, d.task.kind, d.task.taskList))?.recheck();
      return;
    }
    await this.dispatch(d.task);
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
      // A held task's message goes at once, so no poll on another node pulls it while this one starts it.
      if (d.seq !== undefined) void this.remove(d.seq);
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
   * Exact count of tasks waiting in JetStream for a task list (pending plus handed out, not yet
   * acked): the work queue's messages on its subjects. Needs no consumer, so counting makes none.
   */
  async pending(domain: string, kind: 'd' | 'a', taskList: string): Promise<number> {
    let n = 0;
    for (const c of (await TaskLanes.counts(this.jsm, this.s, domain, kind, taskList)).values()) n += c;
    return n;
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
    this.holders.clear();
    clearInterval(this.sweeper);
    for (const l of this.lists.values()) l.close();
  }
}
