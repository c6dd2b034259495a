import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { encode } from '../protocol/codec.js';
import { retry } from '../protocol/retry.js';
import { settledWithin } from '../protocol/settled-within.js';
import type { Subjects } from '../nats/subjects.js';
import type { LocalTaskList } from './local-task-list.js';
import type { TaskMessage } from './task-message.js';

/** A held task goes to JetStream at the latest this long after it was scheduled. */
export const HOLD_MAX_MS = 1000;
/** A node whose pollers starve asks again this often (a task may come to an owner meanwhile). */
const DEMAND_EVERY_MS = 250;
/** An owner publishes a new task at once while a demand for its list is younger than this. */
const DEMAND_FRESH_MS = 2 * DEMAND_EVERY_MS;
/** How long a publish keeps retrying (an R3 stream electing a leader). */
const PUBLISH_RETRY_MS = 30_000;
/** A count waits this long at most for a publish in flight to say where its task is. */
const COUNT_WAIT_MS = 2000;

interface Held {
  task: TaskMessage;
  list: LocalTaskList;
  /** Its message in AF_TASKS once published. */
  seq?: number;
  /** While it is being published: settles when the publish succeeded or failed. */
  publishing?: Promise<void>;
  timer?: NodeJS.Timeout;
}

interface ListDemand {
  sub: Subscription;
  /** When another node last asked for this list's tasks (epoch ms). */
  askedAt: number;
}

/**
 * The tasks this node owns that were scheduled while no poller of theirs waited here (ARCHITECTURE
 * decision 7, issue 21). Each is handed to this node's next poller of its list, with no JetStream
 * round trip and no hop to another node. It is published to AF_TASKS, where any node's pollers
 * take it (asking this node to start it), only when another node asks for the list's tasks (its
 * pollers wait with none in sight: `demand`), or HOLD_MAX_MS after it was scheduled. History is
 * the truth: a task held here when the node dies is queued again by whoever rebuilds its run.
 */
export class HeldTasks {
  private readonly held = new Map<string, Held>();
  private readonly demands = new Map<LocalTaskList, ListDemand>();
  private readonly lastAsk = new Map<LocalTaskList, number>();
  private readonly node = randomBytes(6).toString('hex');
  /** Aborted at shutdown: publishes still retrying give up. */
  private readonly stopped = new AbortController();
  private readonly asker: NodeJS.Timeout;

  constructor(private readonly nc: NatsConnection, private readonly js: JetStreamClient, private readonly jsm: JetStreamManager,
    private readonly s: Subjects, private readonly lists: () => Iterable<LocalTaskList>, private readonly onError: (e: unknown) => void) {
    this.asker = setInterval(() => { for (const l of this.lists()) if (l.starving) this.ask(l); }, DEMAND_EVERY_MS);
    this.asker.unref();
  }

  static keyOf(t: TaskMessage): string {
    return `${t.runId}:${t.kind}:${t.scheduledEventId}`;
  }

  /** Holds `task` on `list` (a poller waiting there gets it at once); `first`: one given back. */
  hold(list: LocalTaskList, task: TaskMessage, first = false): void {
    const key = HeldTasks.keyOf(task);
    this.release(key, false);
    const h: Held = { task, list };
    this.held.set(key, h);
    if (list.hold(key, task, first)) return;
    this.listen(list, task);
    if (Date.now() - (this.demands.get(list)?.askedAt ?? 0) < DEMAND_FRESH_MS) this.publish(key, h);
    else h.timer = setTimeout(() => this.publish(key, h), HOLD_MAX_MS);
  }

  /**
   * Task `key` was handed to a poller here, started elsewhere, or died: this node holds it no
   * more, and its message, if published, goes.
   */
  done(key: string): void {
    this.release(key, true);
  }

  /** Task `key` is no longer this node's (its partition moved): forgotten here, its message stays. */
  forget(key: string): void {
    this.release(key, false);
  }

  /**
   * Tasks of `list` held here that a read of the stream did not count: not published, or stored
   * after the read (`storedThrough`: the stream's last sequence then). A publish in flight is waited
   * for: the stream may have stored its task before the ack comes back here, and counting it both
   * there and here made the count one too high (up to COUNT_WAIT_MS; a publish still retrying then
   * counts here).
   */
  async notCountedBy(list: LocalTaskList, storedThrough: number): Promise<number> {
    let n = 0;
    for (const key of list.heldKeys()) {
      const h = this.held.get(key);
      if (h?.publishing) await settledWithin(h.publishing, COUNT_WAIT_MS);
      if (h && this.held.get(key) === h && (h.seq === undefined || h.seq > storedThrough)) n++;
    }
    return n;
  }

  private release(key: string, removeMessage: boolean): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    clearTimeout(h.timer);
    h.list.unhold(key, h.task.priority ?? 0);
    if (removeMessage && h.seq !== undefined) void this.remove(h.seq);
  }

  private async remove(seq: number): Promise<void> {
    await this.jsm.streams.deleteMessage(this.s.streams.tasks, seq, false).catch(() => false);
  }

  /** Publishes a held task (a message an earlier owner left under the same id is replaced). */
  private publish(key: string, h: Held): void {
    if (h.seq !== undefined || h.publishing) return;
    clearTimeout(h.timer);
    h.publishing = retry(() => this.publishFresh(h.task), { firstMs: 100, capMs: 2000, forMs: PUBLISH_RETRY_MS, signal: this.stopped.signal }).then((seq) => {
      h.publishing = undefined;
      if (this.held.get(key) === h) h.seq = seq;
      else void this.remove(seq);
    }, (e: unknown) => {
      h.publishing = undefined;
      if (this.stopped.signal.aborted) return;
      this.onError(e);
      if (this.held.get(key) === h) h.timer = setTimeout(() => this.publish(key, h), HOLD_MAX_MS);
    });
  }

  /**
   * A task's first message may still be in JetStream (its run rebuilt after a crash: held for a
   * dead node's poller until ack_wait runs out), and the msgID would swallow a plain re-publish:
   * so a duplicate's message is deleted and a fresh copy queued.
   */
  private async publishFresh(t: TaskMessage): Promise<number> {
    const subject = this.s.taskLane(t.domain, t.kind, t.taskList, t.priority ?? 0);
    const id = HeldTasks.keyOf(t);
    const ack = await this.js.publish(subject, encode(t), { msgID: id });
    if (!ack.duplicate) return ack.seq;
    await this.remove(ack.seq);
    return (await this.js.publish(subject, encode(t), { msgID: `${id}:${randomBytes(6).toString('base64url')}` })).seq;
  }

  /** Listens for other nodes' demand for `list` while it exists. */
  private listen(list: LocalTaskList, t: TaskMessage): void {
    if (this.demands.has(list)) return;
    const d: ListDemand = {
      askedAt: 0,
      sub: this.nc.subscribe(this.s.taskDemand(t.domain, t.kind, t.taskList), {
        callback: (err, m) => {
          const [node, waiting] = err ? [] : m.string().split(' ');
          if (node === undefined || node === this.node) return;
          d.askedAt = Date.now();
          // As many as the asking node has pollers waiting (highest priority, oldest first): the
          // rest stay here, where this node's next pollers take them with no hop.
          let n = Math.max(1, Number(waiting) || 1);
          for (const key of list.heldKeys()) {
            const h = this.held.get(key);
            if (!h || h.seq !== undefined || h.publishing) continue;
            this.publish(key, h);
            if (--n === 0) break;
          }
        },
      }),
    };
    this.demands.set(list, d);
  }

  /** Asks the other nodes for the tasks of `list` they hold (at most every DEMAND_EVERY_MS / 2 unless `now`). */
  ask(list: LocalTaskList, now = false): void {
    const last = this.lastAsk.get(list) ?? 0;
    if (Date.now() - last < (now ? 20 : DEMAND_EVERY_MS / 2)) return;
    this.lastAsk.set(list, Date.now());
    const t = list.identity;
    this.nc.publish(this.s.taskDemand(t.domain, t.kind, t.taskList), `${this.node} ${list.waiting}`);
  }

  /** The list is gone from this node (idle, or shutdown). */
  drop(list: LocalTaskList): void {
    this.demands.get(list)?.sub.unsubscribe();
    this.demands.delete(list);
    this.lastAsk.delete(list);
  }

  close(): void {
    this.stopped.abort();
    clearInterval(this.asker);
    for (const h of this.held.values()) clearTimeout(h.timer);
    this.held.clear();
    for (const d of this.demands.values()) d.sub.unsubscribe();
    this.demands.clear();
  }
}
