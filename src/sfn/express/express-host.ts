import type { Logger } from 'pino';
import { createActor, type InspectionEvent, type Observer } from 'xstate';
import { Fault } from '../../protocol/faults.js';
import type { HistoryStore } from '../../history/history-store.js';
import type { EngineClock } from '../../engine/clock.js';
import type { SfnExecutionInput, SfnExecutionOutput, SfnInputEvent } from '../compile/contract.js';
import { resolveCause } from '../compile/state-cause.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import { executionHooks, MachineCache } from '../kind/machine-cache.js';
import { HOST_ACTOR, type SfnCommit } from '../kind/sfn-execution.js';
import { IntegrationRunner, type TaskJob } from '../kind/integration-runner.js';
import { IntegrationRegistry } from '../integrations/registry.js';
import type { MockHook } from '../integrations/integration.js';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Subjects } from '../../nats/subjects.js';
import { ExpressExecution } from './express-execution.js';
import { expressSink } from './express-log.js';
import type { SfnLoggingConfiguration } from './logging-config.js';

/** AWS's limit on an express execution's duration: past it the execution ends TIMED_OUT. */
export const EXPRESS_MAX_DURATION_MS = 5 * 60_000;

/** How an express execution ended (StartSyncExecution's answer). */
export interface ExpressOutcome {
  status: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';
  /** epoch ms */
  stopDate: number;
  output?: string;
  error?: string;
  cause?: string;
}

export interface ExpressHostDeps {
  clock: EngineClock;
  log: Logger;
  /** Never written (express executions keep no history); the live-execution base class needs one. */
  store: HistoryStore;
  /** Where the logs of state machines that ask for logging go (see express-log.ts). */
  js: JetStreamClient;
  subjects: Subjects;
  /** Most express executions running at once on this node (AF_SFN_EXPRESS_MAX_RUNNING). */
  maxRunning: number;
  inspect?: Observer<InspectionEvent>;
  /** The service integrations this node serves (request-response: EXPRESS refuses `.sync` and callbacks). */
  integrations?: IntegrationRegistry;
  /** Answers Tasks before they run (Step Functions Local's mock config), as for standard executions. */
  mock?: MockHook;
}

/** One express execution in memory and the promise of its end. */
interface Running { x: ExpressExecution; settle: (o: ExpressOutcome) => void; timer: unknown }

/**
 * Runs EXPRESS executions in this node's memory, on the machines the standard kind compiles
 * (src/sfn/compile) and with its recording (SfnExecution): one interpreter for both types. Not an
 * ExecutionKind of the engine: that interface is about history (rebuild, fence, sleep, partition
 * ownership), of which an express execution has none; it lives on the node that received it and a
 * crash loses it, as AWS's at-most-once express semantics allow. Wait states, retries and the
 * 5-minute limit run on the engine clock, so virtual time works for express too.
 */
export class ExpressHost {
  private readonly running = new Map<ExpressExecution, Running>();
  private readonly byArn = new Map<string, ExpressExecution>();
  /** Service Tasks run as the standard kind runs them, their answers fed back in turn. */
  private readonly runner: IntegrationRunner;
  private readonly bySystem = new WeakMap<object, ExpressExecution>();
  private constructing: ExpressExecution | undefined;
  private readonly machines: MachineCache;
  private stopped = false;

  constructor(private readonly d: ExpressHostDeps) {
    // As in SfnHost: while createActor runs, the root's first macrostep already records.
    const of = (system: unknown) => this.bySystem.get(system as object) ?? this.constructing;
    this.machines = new MachineCache(d.clock, executionHooks(of));
    this.runner = new IntegrationRunner({
      integrations: d.integrations ?? new IntegrationRegistry(), log: d.log, ...(d.mock ? { mock: d.mock } : {}),
      // EXPRESS definitions hold no `.waitForTaskToken` and no activity: neither a token nor a queue is ever asked for.
      token: () => '',
      enqueue: (j) => this.deliver(j, [{ type: 'sfn.activity.started', key: j.key }, { type: 'sfn.activity.failed', key: j.key, error: 'States.Runtime', cause: 'Express executions run no activities' }]),
      deliver: (j, events) => this.deliver(j, events),
    });
  }

  /** Sends a task's events to its execution in turn, unless the execution ended or the task closed meanwhile. */
  private async deliver(j: TaskJob, events: SfnInputEvent[]): Promise<void> {
    const x = this.byArn.get(j.executionArn);
    if (!x) return;
    await x.serial(async () => {
      const t = x.book.tasks[j.key];
      if (!this.running.has(x) || !t || t.status === 'closed') return;
      for (const e of events) x.actor!.send(e);
      await x.flush();
    });
  }

  /** After a transition: service Tasks scheduled in it run, ended ones stop, a finished execution answers. */
  private async afterCommit(x: ExpressExecution, c: SfnCommit): Promise<void> {
    const id = x.rec.executionArn;
    for (const key of [...c.closed, ...c.abandoned]) this.runner.abort(id, key);
    for (const task of c.scheduled) {
      const t = x.book.tasks[task.key];
      if (t?.status === 'scheduled') this.runner.dispatch({ executionArn: id, partition: x.rec.partition, key: task.key, task: t });
    }
    if (x.done) this.finish(x);
  }

  /** Express executions running on this node now. */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Starts an express execution; resolves once it runs (its first transition recorded), with the
   * promise of its end. Past the node's cap → ExecutionLimitExceeded, and nothing runs. Its events
   * go to the state machine's log when `logging` asks for one, else nowhere.
   */
  async start(rec: SfnExecutionRecord, logging: SfnLoggingConfiguration | undefined): Promise<{ done: Promise<ExpressOutcome> }> {
    if (this.stopped) throw new Fault('InternalFailure', 'node is shutting down', { retryable: true });
    if (this.running.size >= this.d.maxRunning) {
      throw new Fault('ExecutionLimitExceeded', `Execution Limit Exceeded: this node runs at most ${this.d.maxRunning} express executions at once`);
    }
    try {
      await this.machines.prepare(rec.definition);
    } catch (e) {
      throw new Fault('InvalidDefinition', `Invalid State Machine Definition: '${e instanceof Error ? e.message : String(e)}'`);
    }
    const x = new ExpressExecution(rec, this.d.store, this.d.clock, expressSink(this.d.js, this.d.subjects, rec, logging),
      (ex, c) => this.afterCommit(ex as ExpressExecution, c), (ex, err) => this.failed(ex as ExpressExecution, err));
    let settle!: (o: ExpressOutcome) => void;
    const done = new Promise<ExpressOutcome>((resolve) => { settle = resolve; });
    // AWS's 5-minute limit (a shorter TimeoutSeconds of the definition is the machine's own timer).
    const timer = this.d.clock.setTimeout(() => x.actor?.send({ type: 'sfn.execTimeout' } as never), rec.startDate + EXPRESS_MAX_DURATION_MS - this.d.clock.now());
    this.running.set(x, { x, settle, timer });
    this.byArn.set(rec.executionArn, x);
    try {
      await x.serial(async () => {
        x.record(HOST_ACTOR, { type: 'ExecutionStarted', details: { input: rec.input, inputDetails: { truncated: false }, roleArn: rec.roleArn } });
        this.spawn(x);
        await x.flush();
      });
    } catch (e) {
      this.failed(x, e);
    }
    return { done };
  }

  private spawn(x: ExpressExecution): void {
    const r = x.rec;
    const input: SfnExecutionInput = {
      executionArn: r.executionArn, executionName: r.name, stateMachineArn: r.stateMachineArn,
      stateMachineName: r.stateMachineName, roleArn: r.roleArn, input: x.executionInput, startTime: r.startDate,
    };
    this.constructing = x;
    try {
      x.actor = createActor(this.machines.get(r.definition), { id: 'root', clock: x.timers, input, ...(this.d.inspect ? { inspect: this.d.inspect } : {}) });
    } finally {
      this.constructing = undefined;
    }
    this.bySystem.set(x.actor.system, x);
    x.actor.subscribe({ error: (err) => this.failed(x, err) });
    x.actor.start();
  }

  private release(x: ExpressExecution): Running | undefined {
    const r = this.running.get(x);
    if (!r) return undefined;
    this.running.delete(x);
    this.byArn.delete(x.rec.executionArn);
    this.runner.abortExecution(x.rec.executionArn);
    this.d.clock.clearTimeout(r.timer);
    x.kill();
    return r;
  }

  private finish(x: ExpressExecution): void {
    const out = x.actor!.getSnapshot().output as SfnExecutionOutput;
    const r = this.release(x);
    if (!r) return;
    const o: ExpressOutcome = { status: out.status, stopDate: this.d.clock.now() };
    if (out.status === 'SUCCEEDED') o.output = x.text.json(JSON.stringify(out.output ?? null));
    else {
      if (out.error !== undefined) o.error = out.error;
      if (out.cause !== undefined) o.cause = resolveCause(out.cause, x.entered);
    }
    r.settle(o);
  }

  /** An actor or a log write failed: the execution ends FAILED (States.Runtime), never left running. */
  private failed(x: ExpressExecution, err: unknown): void {
    if (!this.running.has(x)) return;
    this.d.log.error({ err, executionArn: x.rec.executionArn }, 'express execution failed');
    this.release(x)!.settle({ status: 'FAILED', stopDate: this.d.clock.now(), error: 'States.Runtime', cause: err instanceof Error ? err.message : String(err) });
  }

  /** Shutdown: every running express execution ends FAILED (their callers are answered), none starts. */
  stop(): void {
    this.stopped = true;
    for (const x of [...this.running.keys()]) {
      this.release(x)!.settle({ status: 'FAILED', stopDate: this.d.clock.now(), error: 'States.Runtime', cause: 'The engine node stopped' });
    }
  }
}
