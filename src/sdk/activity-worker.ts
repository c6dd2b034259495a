import type { ActorFlowClient } from './client.js';
import { SWF_ANSWER } from './answer.js';
import { WORKER_DEFAULTS, WorkerLoop } from './worker-loop.js';

export interface ActivityTask {
  taskToken: string;
  activityId: string;
  startedEventId: number;
  workflowExecution: { workflowId: string; runId: string };
  activityType: { name: string; version: string };
  input?: string;
}

export interface ActivityContext {
  /** Records a heartbeat; resolves to true when the decider asked to cancel the task. */
  heartbeat(details?: string): Promise<boolean>;
  /** True once a heartbeat answered cancelRequested. */
  readonly cancelRequested: boolean;
}

/** Throw this from a handler to answer RespondActivityTaskCanceled. */
export class ActivityCanceled extends Error {
  constructor(readonly details?: string) {
    super('activity canceled');
    this.name = 'ActivityCanceled';
  }
}

/** Throw this from a handler to answer RespondActivityTaskFailed with a reason and details of your own. */
export class ActivityFailed extends Error {
  override readonly name = 'ActivityFailed';
  constructor(readonly reason: string, readonly details?: string) {
    super(reason);
  }
}

export interface ActivityWorkerOptions {
  domain: string;
  taskList: string;
  identity?: string;
  /** Tasks handled at once (default 1): one long poll per slot. */
  concurrency?: number;
  /** Heartbeat automatically every this many ms while a handler runs (off by default). */
  heartbeatIntervalMs?: number;
  pollTimeoutMs?: number;
  onError?: (e: unknown) => void;
}

export type ActivityHandler = (task: ActivityTask, ctx: ActivityContext) => Promise<string | undefined> | string | undefined;

/**
 * An activity worker: polls a task list, runs the handler for the activity type, and answers
 * Completed (the returned string is the result), Failed (a thrown error) or Canceled (ActivityCanceled).
 * An answer lost with an engine node is sent again (see sendAnswer).
 */
export class ActivityWorker {
  private readonly loop: WorkerLoop<ActivityTask>;

  constructor(private readonly client: ActorFlowClient, private readonly o: ActivityWorkerOptions,
    private readonly handlers: Record<string, ActivityHandler>) {
    this.loop = new WorkerLoop(client, { concurrency: o.concurrency, onError: o.onError, answers: SWF_ANSWER }, { poll: () => this.poll(), handle: (t) => this.run(t) });
  }

  private async poll(): Promise<ActivityTask | undefined> {
    const task = await this.client.call<Partial<ActivityTask>>('PollForActivityTask', {
      domain: this.o.domain, taskList: { name: this.o.taskList }, identity: this.o.identity,
      afPollTimeoutMs: this.o.pollTimeoutMs ?? WORKER_DEFAULTS.swfPollTimeoutMs,
    });
    return task.taskToken ? task as ActivityTask : undefined;
  }

  private async run(task: ActivityTask): Promise<void> {
    const taskToken = task.taskToken;
    let cancelRequested = false;
    const ctx: ActivityContext = {
      heartbeat: async (details) => {
        const r = await this.client.call<{ cancelRequested: boolean }>('RecordActivityTaskHeartbeat', { taskToken, details });
        cancelRequested ||= r.cancelRequested;
        return r.cancelRequested;
      },
      get cancelRequested() { return cancelRequested; },
    };
    const timer = this.o.heartbeatIntervalMs ? setInterval(() => { ctx.heartbeat().catch(() => undefined); }, this.o.heartbeatIntervalMs) : undefined;
    try {
      // Only the handler's own errors (Faults from its API calls included) become Failed/Canceled;
      // a failing Respond* call goes to onError instead of being answered a second time.
      let result: string | undefined;
      try {
        const handler = this.handlers[task.activityType.name];
        if (!handler) throw new Error(`no handler for activity type ${task.activityType.name}`);
        result = await handler(task, ctx);
      } catch (e) {
        if (e instanceof ActivityCanceled) await this.loop.answer('RespondActivityTaskCanceled', { taskToken, details: e.details });
        else if (e instanceof ActivityFailed) await this.loop.answer('RespondActivityTaskFailed', { taskToken, reason: e.reason.slice(0, 256), details: e.details?.slice(0, 32768) });
        else await this.loop.answer('RespondActivityTaskFailed', { taskToken, reason: String((e as Error).message ?? e).slice(0, 256) });
        return;
      }
      await this.loop.answer('RespondActivityTaskCompleted', { taskToken, result });
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  start(): this {
    this.loop.start();
    return this;
  }

  /** Ends the polls after the current ones and waits for the tasks in hand (answers lost meanwhile are resent for 30 s at most). */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
