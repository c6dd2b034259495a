import { AckPolicy, DeliverPolicy, type Consumer, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { decode, encode } from '../nats/codec.js';
import { taskListConsumer, type Subjects } from '../nats/subjects.js';

/** A task message in AF_TASKS: enough for any node to ask the run's owner to start it. */
export interface TaskMessage {
  domain: string;
  workflowId: string;
  runId: string;
  partition: number;
  kind: 'd' | 'a';
  scheduledEventId: number;
}

const NS = 1_000_000;

/**
 * Task lists as JetStream work queues (ARCHITECTURE decision 7): one durable pull consumer per
 * task list; a poll is a pull with an expiry; a started task's message is acked away.
 */
export class TaskQueues {
  private readonly consumers = new Map<string, Promise<Consumer>>();

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly s: Subjects) {}

  /** Publishes a task; returns its stream sequence (kept to remove the message if the task dies unstarted). */
  async enqueue(taskList: string, t: TaskMessage): Promise<number> {
    const ack = await this.js.publish(this.s.taskList(t.domain, t.kind, taskList), encode(t), {
      msgID: `${t.runId}:${t.kind}:${t.scheduledEventId}`,
    });
    return ack.seq;
  }

  async remove(seq: number): Promise<void> {
    await this.jsm.streams.deleteMessage(this.s.streams.tasks, seq, false).catch(() => false);
  }

  private consumer(domain: string, kind: 'd' | 'a', taskList: string): Promise<Consumer> {
    const name = taskListConsumer(domain, kind, taskList);
    let c = this.consumers.get(name);
    if (!c) {
      c = (async () => {
        await this.jsm.consumers.add(this.s.streams.tasks, {
          durable_name: name, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All,
          filter_subject: this.s.taskList(domain, kind, taskList), ack_wait: 30_000 * NS, max_ack_pending: -1,
          max_waiting: 4096, inactive_threshold: 0,
        });
        return this.js.consumers.get(this.s.streams.tasks, name);
      })();
      this.consumers.set(name, c);
      c.catch(() => this.consumers.delete(name));
    }
    return c;
  }

  /**
   * Long-polls a task list until `deadline` (epoch ms). Each task is offered to `start`; a task that
   * is no longer startable (timed out, canceled, already started) answers null and is acked away.
   */
  async poll<T>(domain: string, kind: 'd' | 'a', taskList: string, deadline: number,
    start: (t: TaskMessage) => Promise<T | null>, stillWanted: () => boolean = () => true): Promise<T | null> {
    const consumer = await this.consumer(domain, kind, taskList);
    while (stillWanted()) {
      const left = deadline - Date.now();
      if (left < 50) return null;
      const m = await consumer.next({ expires: Math.max(1000, left) });
      if (!m) continue;
      if (!stillWanted()) { m.nak(); return null; }
      let result: T | null;
      try {
        result = await start(decode<TaskMessage>(m.data));
      } catch (e) {
        m.nak(100);
        throw e;
      }
      m.ack();
      if (result !== null) return result;
    }
    return null;
  }

  /** Exact count of tasks waiting on a task list (pending plus handed out but not yet acked). */
  async pending(domain: string, kind: 'd' | 'a', taskList: string): Promise<number> {
    const consumer = await this.consumer(domain, kind, taskList);
    const info = await consumer.info();
    return info.num_pending + info.num_ack_pending;
  }
}
