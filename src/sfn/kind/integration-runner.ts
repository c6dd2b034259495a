import type { Logger } from 'pino';
import { settledWithin } from '../../protocol/settled-within.js';
import type { SfnInputEvent } from '../compile/contract.js';
import type { IntegrationCall, IntegrationResult, MockHook } from '../integrations/integration.js';
import type { IntegrationRegistry } from '../integrations/registry.js';
import type { SfnTaskState } from './sfn-execution.js';

/** Longest a token's answer waits for its task's TaskSubmitted to be stored. */
const SUBMIT_WAIT_MS = 2000;

/** One task to run: where it belongs and what the book says of it. */
export interface TaskJob {
  executionArn: string;
  partition: number;
  key: string;
  task: SfnTaskState;
}

export interface IntegrationRunnerDeps {
  integrations: IntegrationRegistry;
  mock?: MockHook;
  log: Logger;
  /** The token of a task (`$$.Task.Token`, handed to the integration as IntegrationCall.taskToken). */
  token(job: TaskJob): string;
  /** Feeds events to the task's execution through its command queue, when the task is still open. */
  deliver(job: TaskJob, events: SfnInputEvent[]): Promise<void>;
  /** Queues an activity task for its workers (the mock did not answer it). */
  enqueue(job: TaskJob): Promise<void>;
}

/** What an answer becomes: the task's success or failure. */
function finish(key: string, r: IntegrationResult): SfnInputEvent {
  return r.ok ? { type: 'sfn.activity.succeeded', key, output: r.output } : { type: 'sfn.activity.failed', key, error: r.error, cause: r.cause };
}

/**
 * Runs service integration tasks (and mocked activities) once their scheduling event is persisted:
 * the mock first, then the integration, its answer fed back to the execution. One call per task at
 * a time; `abort` ends a call whose state ended without it. Nothing here is awaited by a commit.
 */
export class IntegrationRunner {
  private readonly running = new Map<string, AbortController>();
  /** Callback calls whose TaskSubmitted is not stored yet, by task: settle once it is (or the call ends). */
  private readonly submitting = new Map<string, Promise<void>>();

  constructor(private readonly d: IntegrationRunnerDeps) {}

  /** Starts a task's work in the background (a call already running for it is left to finish). */
  dispatch(job: TaskJob): void {
    const id = `${job.key}@${job.executionArn}`;
    if (this.running.has(id)) return;
    const ac = new AbortController();
    this.running.set(id, ac);
    let submitted!: () => void;
    if (job.task.service?.pattern === 'waitForTaskToken' && job.task.status !== 'submitted') {
      this.submitting.set(id, new Promise<void>((resolve) => { submitted = resolve; }));
    }
    const done = () => {
      if (this.submitting.has(id)) { this.submitting.delete(id); submitted(); }
    };
    this.work(job, ac.signal, done)
      .catch((err) => { if (!ac.signal.aborted) this.d.log.error({ err, executionArn: job.executionArn, key: job.key }, 'task integration failed'); })
      .finally(() => {
        done();
        if (this.running.get(id) === ac) this.running.delete(id);
      });
  }

  /**
   * Waits (at most `maxMs`) while a callback's TaskSubmitted is on its way: a worker that answers
   * the token at once would otherwise close the task before AWS's TaskSubmitted is in its history.
   */
  async submitted(executionArn: string, key: string, maxMs = SUBMIT_WAIT_MS): Promise<void> {
    const p = this.submitting.get(`${key}@${executionArn}`);
    if (p) await settledWithin(p, maxMs);
  }

  /** Aborts the call of a task whose state ended (timeout, stop, a failed sibling branch). */
  abort(executionArn: string, key: string): void {
    const id = `${key}@${executionArn}`;
    this.running.get(id)?.abort();
    this.running.delete(id);
  }

  /** Aborts every call of an execution (it closed, or this node lets it go). */
  abortExecution(executionArn: string): void {
    for (const [id, ac] of this.running) {
      if (!id.endsWith(`@${executionArn}`)) continue;
      ac.abort();
      this.running.delete(id);
    }
  }

  /** Aborts everything (the node stops). */
  abortAll(): void {
    for (const ac of this.running.values()) ac.abort();
    this.running.clear();
  }

  private async work(job: TaskJob, signal: AbortSignal, submitted: () => void): Promise<void> {
    const { key, task } = job;
    const mocked = this.d.mock && task.state !== undefined
      ? await this.d.mock({ executionArn: job.executionArn, stateName: task.state, resource: task.resource, attempt: task.attempt ?? 0 })
      : undefined;
    if (signal.aborted) return;
    if (mocked) {
      await this.d.deliver(job, [{ type: 'sfn.activity.started', key }, finish(key, mocked)]);
      return;
    }
    if (!task.service) {
      await this.d.enqueue(job);
      return;
    }
    const served = this.d.integrations.resolve(task.resource);
    if (!served) {
      await this.d.deliver(job, [{ type: 'sfn.activity.started', key }, { type: 'sfn.activity.failed', key, error: 'States.Runtime', cause: `No integration on this node serves ${task.resource}` }]);
      return;
    }
    if (task.status === 'scheduled') await this.d.deliver(job, [{ type: 'sfn.activity.started', key }]);
    if (signal.aborted) return;
    const pattern = served.service.pattern;
    const call: IntegrationCall = {
      resourceArn: task.resource, service: served.service, parameters: JSON.parse(task.input) as unknown,
      executionArn: job.executionArn, stateName: task.state ?? '', taskKey: key, signal,
      ...(pattern === 'waitForTaskToken' ? { taskToken: this.d.token(job) } : {}),
      ...(task.deadline !== undefined ? { deadline: task.deadline } : {}),
      ...(pattern === 'sync' || pattern === 'sync:2' ? {
        submitted: (output: unknown) => {
          if (task.status !== 'submitted' && !signal.aborted) this.d.deliver(job, [{ type: 'sfn.task.submitted', key, output }]).catch((err) => this.d.log.error({ err, key }, 'could not record TaskSubmitted'));
        },
      } : {}),
    };
    let r: IntegrationResult;
    try {
      r = await served.integration.invoke(call);
    } catch (e) {
      // The contract says an integration answers its errors; one that throws fails the task all the same.
      r = { ok: false, error: 'States.TaskFailed', cause: e instanceof Error ? e.message : String(e) };
    }
    if (signal.aborted) return;
    if (pattern === 'waitForTaskToken' && r.ok) {
      await this.d.deliver(job, [{ type: 'sfn.task.submitted', key, output: r.output }]);
      submitted();
    } else await this.d.deliver(job, [finish(key, r)]);
  }
}

/**
 * Whether a task must be queued or invoked again after a crash or takeover: an activity not yet
 * started; a service task without its answer (a callback: not yet submitted; `.sync`: not done).
 */
export function mustRunAgain(t: SfnTaskState): boolean {
  if (!t.service) return t.status === 'scheduled';
  if (t.status === 'submitted') return t.service.pattern !== 'waitForTaskToken';
  return t.status === 'scheduled' || t.status === 'started';
}
