import { setMaxListeners } from 'node:events';
import { backoffMs, sleep } from '../protocol/retry.js';
import { STOP_GRACE_MS, sendAnswer, type AnswerOptions } from './answer.js';
import type { ActorFlowClient } from './client.js';

/** The defaults every worker and decider shares (each documents them on its options). */
export const WORKER_DEFAULTS = {
  /** Tasks handled at once: one long poll per slot. */
  concurrency: 1,
  /** SWF polls (deciders, activity workers) are held this long, so that stop() is quick. */
  swfPollTimeoutMs: 5000,
  /** Step Functions GetActivityTask polls are held this long (AWS holds them 60 s). */
  sfnPollTimeoutMs: 20_000,
  /** After stop(), answers lost meanwhile are sent again for this long at most. */
  stopGraceMs: STOP_GRACE_MS,
} as const;

/** A failed poll is tried again after a backoff from 200 ms to 2 s, with jitter; a poll that works resets it. */
const POLL_BACKOFF = { firstMs: 200, capMs: 2000, jitter: 0.5 };

export interface WorkerLoopOptions {
  concurrency?: number;
  /** A poll or a task that failed (the loop goes on). */
  onError?: (e: unknown) => void;
  stopGraceMs?: number;
  /** How the kind's answers end: which faults mean the task is gone (SWF_ANSWER, SFN_ANSWER). */
  answers: AnswerOptions;
}

export interface WorkerTasks<T> {
  /** One long poll: a task, or undefined when the poll ended empty. */
  poll(): Promise<T | undefined>;
  /** Runs one task and answers it through `loop.answer`. */
  handle(task: T): Promise<void>;
}

/**
 * The one lifecycle of the SDK's workers and deciders: `start()` runs N long-poll loops; `stop()`
 * ends them after their current poll and waits for every task in hand, whose answers lost with an
 * engine node are sent again (sendAnswer) for the stop grace at most. start() after stop() runs again.
 */
export class WorkerLoop<T> {
  private running = false;
  private loops: Promise<void>[] = [];
  private stopping = stopController();

  constructor(private readonly client: ActorFlowClient, private readonly o: WorkerLoopOptions, private readonly tasks: WorkerTasks<T>) {
    const n = o.concurrency ?? WORKER_DEFAULTS.concurrency;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`concurrency must be a whole number of at least 1, got ${n}`);
  }

  /** Aborted once stop() is called (until the next start()). */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Sends a task's answer, again after a lost reply, until it lands or the task is gone. */
  answer(action: string, input: object): Promise<void> {
    return sendAnswer(this.client, action, input, {
      ...this.o.answers, stopping: this.stopping.signal, stopGraceMs: this.o.stopGraceMs ?? WORKER_DEFAULTS.stopGraceMs,
    });
  }

  start(): void {
    if (this.running) return;
    if (this.stopping.signal.aborted) this.stopping = stopController();
    this.running = true;
    this.loops = Array.from({ length: this.o.concurrency ?? WORKER_DEFAULTS.concurrency }, () => this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        const task = await this.tasks.poll();
        failures = 0;
        // A task taken is handled even when stop() came meanwhile: the engine has started it.
        if (task !== undefined) await this.tasks.handle(task);
      } catch (e) {
        if (!this.running) break;
        (this.o.onError ?? (() => undefined))(e);
        await sleep(backoffMs(POLL_BACKOFF, ++failures), this.stopping.signal);
      }
    }
  }
}

/** A stop signal that every task in hand listens to (one listener per concurrency slot, no cap). */
function stopController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}
