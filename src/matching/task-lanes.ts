import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { laneOf, taskListConsumer, type Subjects } from '../nats/subjects.js';
import { isNoResponders } from '../nats/error-causes.js';

const NS = 1_000_000;
/** A pull waits at most this long for its answer (the server answers a no-wait pull at once). */
const PULL_REPLY_MS = 5000;

/** A task message pulled from a lane's consumer: acked once its task started, else put back. */
export interface PulledTask {
  subject: string;
  seq: number;
  data: Uint8Array;
  ack(): void;
  /** Back to the lane, offered again at once (or after `delayMs`). */
  nak(delayMs?: number): void;
}

/** The stream sequence in a JetStream ack subject (`$JS.ACK.[<domain>.<hash>.]<stream>.<consumer>.<n>.<seq>…`). */
function streamSeq(reply: string): number {
  const t = reply.split('.');
  return Number(t[t.length === 9 ? 5 : 7]);
}

/**
 * The priorities of one task list (SWF taskPriority): each is a subject of its own in AF_TASKS
 * (`<taskList>.p<hex>`), read through a durable consumer filtered to that subject alone (work-queue
 * consumers may not overlap), made by the first pull and removed by the server `idleMs` after the
 * last. Which priorities hold tasks is read from the stream (per-subject counts), never from
 * consumers, so counting makes none and a list nobody pulls from keeps none. Pulls never wait on a
 * lane (see pull), so no pull request is left on a lower priority while a higher one fills.
 */
export class TaskLanes {
  private readonly made = new Map<number, Promise<string>>();

  constructor(private readonly nc: NatsConnection, private readonly js: JetStreamClient, private readonly jsm: JetStreamManager,
    private readonly s: Subjects, private readonly domain: string, private readonly kind: 'd' | 'a', private readonly taskList: string,
    private readonly idleMs: number) {}

  /**
   * Messages per priority (pending plus handed out, not yet acked): exact, and needs no consumer.
   * `storedThrough`: the stream's last sequence when they were counted.
   */
  static async counts(jsm: JetStreamManager, s: Subjects, domain: string, kind: 'd' | 'a', taskList: string): Promise<{ counts: Map<number, number>; storedThrough: number }> {
    const info = await jsm.streams.info(s.streams.tasks, { subjects_filter: s.taskLanes(domain, kind, taskList) });
    const counts = new Map<number, number>();
    for (const [subject, n] of Object.entries(info.state.subjects ?? {})) {
      const p = laneOf(subject);
      if (p !== undefined && n > 0) counts.set(p, n);
    }
    return { counts, storedThrough: info.state.last_seq };
  }

  /** The priorities that hold a message now, highest first. */
  async nonEmpty(): Promise<number[]> {
    const { counts } = await TaskLanes.counts(this.jsm, this.s, this.domain, this.kind, this.taskList);
    return [...counts.keys()].sort((a, b) => b - a);
  }

  /** Calls `arrived(priority)` for every task published to the list from now on, by any node. */
  watch(arrived: (priority: number) => void): Subscription {
    return this.nc.subscribe(this.s.taskLanes(this.domain, this.kind, this.taskList), {
      callback: (err, m) => {
        if (err) return;
        const p = laneOf(m.subject);
        if (p !== undefined) arrived(p);
      },
    });
  }

  private consumer(priority: number): Promise<string> {
    let c = this.made.get(priority);
    if (!c) {
      const name = taskListConsumer(this.domain, this.kind, this.taskList, priority);
      const inactive_threshold = this.idleMs * NS;
      c = this.jsm.consumers.add(this.s.streams.tasks, {
        durable_name: name, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All,
        filter_subject: this.s.taskLane(this.domain, this.kind, this.taskList, priority), ack_wait: 30_000 * NS, max_ack_pending: -1,
        max_waiting: 4096, inactive_threshold,
      }).catch(async (e: unknown) => {
        // Made by a node with another idle time: take it, with ours.
        await this.jsm.consumers.update(this.s.streams.tasks, name, { inactive_threshold }).catch(() => { throw e; });
      }).then(() => name);
      this.made.set(priority, c);
      c.catch(() => this.made.delete(priority));
    }
    return c;
  }

  /**
   * Takes the first task of one priority: at once (`waitMs` 0: null when none is free, e.g. all
   * handed to other pollers), or waiting up to `waitMs` for one just published (its arrival can be
   * seen before the stream stored it). The pull's answer always comes back, so no message is ever
   * handed to a pull nobody reads.
   */
  async pull(priority: number, waitMs = 0, again = true): Promise<PulledTask | null> {
    const name = await this.consumer(priority);
    const request = waitMs > 0 ? { batch: 1, expires: waitMs * NS } : { batch: 1, no_wait: true };
    let m;
    try {
      // A dedicated inbox: the message comes back on its own subject, which the muxed inbox cannot match.
      m = await this.nc.request(`${this.js.apiPrefix}.CONSUMER.MSG.NEXT.${this.s.streams.tasks}.${name}`, JSON.stringify(request),
        { timeout: waitMs + PULL_REPLY_MS, noMux: true });
    } catch (e) {
      this.made.delete(priority);
      // No responders: the server removed the idle consumer (this priority idle while others were
      // not, so this node still knew it); make it again.
      if (again && isNoResponders(e)) return this.pull(priority, waitMs, false);
      throw e;
    }
    if (m.headers?.code || !m.reply) return null;
    const reply = m.reply;
    return {
      subject: m.subject, seq: streamSeq(reply), data: m.data,
      ack: () => this.nc.publish(reply, '+ACK'),
      nak: (delayMs) => this.nc.publish(reply, delayMs ? `-NAK ${JSON.stringify({ delay: delayMs * NS })}` : '-NAK'),
    };
  }

  /** Forgets the consumers this node made (the server removes them when idle). */
  forget(): void {
    this.made.clear();
  }
}
