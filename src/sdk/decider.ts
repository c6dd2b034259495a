import type { ActorFlowClient, WireEvent } from './client.js';
import { SWF_ANSWER } from './answer.js';
import { WORKER_DEFAULTS, WorkerLoop } from './worker-loop.js';

export interface DecisionTask {
  taskToken: string;
  startedEventId: number;
  previousStartedEventId: number;
  workflowExecution: { workflowId: string; runId: string };
  workflowType: { name: string; version: string };
  /** The whole history up to this task (all pages). */
  events: WireEvent[];
}

export interface DecisionResult {
  decisions: object[];
  executionContext?: string;
}

export interface DeciderOptions {
  domain: string;
  taskList: string;
  identity?: string;
  /** Concurrent polls (default 1). */
  concurrency?: number;
  /** How long each poll is held on the engine (default 5,000 ms; bounds how long stop() takes). */
  pollTimeoutMs?: number;
  onError?: (e: unknown) => void;
  /** Called after the engine accepted the decisions of a task. */
  onResponded?: (task: DecisionTask, result: DecisionResult) => void;
}

/**
 * A decider loop: polls decision tasks, calls `decide`, answers RespondDecisionTaskCompleted (sent
 * again when lost with an engine node, see sendAnswer).
 */
export class Decider {
  private readonly loop: WorkerLoop<DecisionTask>;

  constructor(private readonly client: ActorFlowClient, private readonly o: DeciderOptions,
    private readonly decide: (task: DecisionTask) => Promise<DecisionResult> | DecisionResult) {
    this.loop = new WorkerLoop(client, { concurrency: o.concurrency, onError: o.onError, answers: SWF_ANSWER }, { poll: () => this.poll(), handle: (t) => this.handle(t) });
  }

  private async poll(): Promise<DecisionTask | undefined> {
    const poll = { domain: this.o.domain, taskList: { name: this.o.taskList }, identity: this.o.identity, afPollTimeoutMs: this.o.pollTimeoutMs ?? WORKER_DEFAULTS.swfPollTimeoutMs };
    const first = await this.client.call<Partial<DecisionTask> & { nextPageToken?: string }>('PollForDecisionTask', poll);
    if (!first.taskToken) return undefined;
    const events = [...(first.events ?? [])];
    let token = first.nextPageToken;
    while (token) {
      const page = await this.client.call<{ events: WireEvent[]; nextPageToken?: string }>('PollForDecisionTask', { ...poll, nextPageToken: token });
      for (const e of page.events) events.push(e);
      token = page.nextPageToken;
    }
    return { ...first, events } as DecisionTask;
  }

  private async handle(task: DecisionTask): Promise<void> {
    const result = await this.decide(task);
    await this.loop.answer('RespondDecisionTaskCompleted', { taskToken: task.taskToken, ...result });
    this.o.onResponded?.(task, result);
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
