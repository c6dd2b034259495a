import { AckPolicy, DeliverPolicy, type Consumer, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { randomBytes } from 'node:crypto';
import { encode } from '../nats/codec.js';
import { UNREPORTED, type Quarantine } from '../history/quarantine.js';
import { taskListConsumer, type Subjects } from '../nats/subjects.js';
import { LocalTaskList, type Delivery } from './local-task-list.js';

/** A task message: enough for any node to ask the run's owner to start it. */
export interface TaskMessage {
  domain: string;
  workflowId: string;
  runId: string;
  partition: number;
  kind: 'd' | 'a';
  taskList: string;
  scheduledEventId: number;
}

const NS = 1_000_000;
/** Default AF_TASK_CONSUMER_IDLE_MS: a task list's consumer goes this long after its last poll. */
export const DEFAULT_CONSUMER_IDLE_MS = 300_000;

/**
 * Task lists (ARCHITECTURE decision 7): a task whose history is persisted goes straight to a
 * poller waiting on this node, or else into the JetStream work queue AF_TASKS (one durable pull
 * consumer per task list), where any node's pollers pull it. Starting a task is the owner's
 * decision; a stale task is dropped (acked away) and the poll goes on.
 */
export class TaskQueues {
  private readonly consumers = new Map<string, Promise<Consumer>>();
  private readonly lists = new Map<string, LocalTaskList>();
  private readonly sweeper: NodeJS.Timeout;

  /**
   * `consumerIdleMs`: a task list's durable consumer exists only while pollers use it. It is made
   * by the first poll and removed by the server (`inactive_threshold`) this long after the last
   * pull ended on any node; this node forgets its own copy after half of it. Counting and
   * enqueueing need no consumer, so names nobody polls leave nothing behind.
   */
  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly s: Subjects,
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
      const [domain, kind, taskList] = k.split('\u0000') as [string, 'd' | 'a', string];
      this.consumers.delete(taskListConsumer(domain, kind, taskList));
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
    return this.enqueue(t);
  }

  async enqueue(t: TaskMessage): Promise<number> {
    return (await this.publish(t, TaskQueues.msgID(t))).seq;
  }

  private static msgID(t: TaskMessage): string {
    return `${t.runId}:${t.kind}:${t.scheduledEventId}`;
  }

  private publish(t: TaskMessage, msgID: string) {
    return this.js.publish(this.s.taskList(t.domain, t.kind, t.taskList), encode(t), { msgID });
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
    if (!ack.duplicate) return ack.seq;
    await this.remove(ack.seq);
    return (await this.publish(t, `${TaskQueues.msgID(t)}:${randomBytes(6).toString('base64url')}`)).seq;
  }

  async remove(seq: number): Promise<void> {
    await this.jsm.streams.deleteMessage(this.s.streams.tasks, seq, false).catch(() => false);
  }

  private consumer(domain: string, kind: 'd' | 'a', taskList: string): Promise<Consumer> {
    const name = taskListConsumer(domain, kind, taskList);
    let c = this.consumers.get(name);
    if (!c) {
      c = (async () => {
        const inactive_threshold = this.consumerIdleMs * NS;
        await this.jsm.consumers.add(this.s.streams.tasks, {
          durable_name: name, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All,
          filter_subject: this.s.taskList(domain, kind, taskList), ack_wait: 30_000 * NS, max_ack_pending: -1,
          max_waiting: 4096, inactive_threshold,
        }).catch(async (e: unknown) => {
          // A consumer made before consumers expired (no inactive_threshold): give it one.
          await this.jsm.consumers.update(this.s.streams.tasks, name, { inactive_threshold }).catch(() => { throw e; });
        });
        return this.js.consumers.get(this.s.streams.tasks, name);
      })();
      this.consumers.set(name, c);
      c.catch(() => this.consumers.delete(name));
    }
    return c;
  }

  private list(domain: string, kind: 'd' | 'a', taskList: string): LocalTaskList {
    const k = TaskQueues.key(domain, kind, taskList);
    let l = this.lists.get(k);
    if (!l) {
      // A failed pull may mean the server removed the consumer: the next one asks for it again.
      l = new LocalTaskList(() => this.consumer(domain, kind, taskList), (e) => {
        this.consumers.delete(taskListConsumer(domain, kind, taskList));
        this.onError(e);
      }, (m) => this.quarantine.tryDecode<TaskMessage>('task', m.data, { stream: this.s.streams.tasks, subject: m.subject, seq: m.seq }));
      if (this.closed) l.close();
      this.lists.set(k, l);
    }
    return l;
  }

  /** A delivery this poller cannot use goes to the next poller (or back to JetStream). */
  private async giveBack(d: Delivery): Promise<void> {
    if (d.msg) { d.msg.nak(); return; }
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
   * acked): the work queue's messages on its subject. Needs no consumer, so counting makes none.
   */
  async pending(domain: string, kind: 'd' | 'a', taskList: string): Promise<number> {
    const subject = this.s.taskList(domain, kind, taskList);
    const info = await this.jsm.streams.info(this.s.streams.tasks, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
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
    clearInterval(this.sweeper);
    for (const l of this.lists.values()) l.close();
  }
}
