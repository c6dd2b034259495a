import type { WireEvent } from '../sdk/client.js';
import { outsideWorkflow } from './determinism.js';
import { durationToMs, swfSeconds, type Duration } from './duration.js';
import { ActivityFailure, CancelledFailure, ChildWorkflowFailure, ContinueAsNew } from './errors.js';
import { attrs } from './history-index.js';
import { decode, encode } from './payload.js';
import type { Command, Decision, RunInfo, RunListener, WorkflowRun } from './run.js';

export interface TypeRef { name: string; version: string }

/** An activity definition as wf.activity types it: its input and result (defineActivity's result is one). */
export interface TypedActivity<I, O> extends TypeRef {
  readonly fn: (input: I, ctx: never) => Promise<O> | O;
}

export interface RetryPolicy {
  /** Attempts in all, the first included (default 1: no retry). */
  maximumAttempts?: number;
  /** Wait before the second attempt (default 1 s). */
  initialInterval?: Duration;
  /** Each wait is this many times the one before (default 2). */
  backoffCoefficient?: number;
  /** The longest wait (default 100 × initialInterval). */
  maximumInterval?: Duration;
  /** Failure reasons (an ActivityFailure's `reason`) that end the retries at once. */
  nonRetryable?: string[];
}

export interface ActivityOptions {
  /** The activity type's version when the activity is named by a string (default: the workflow's `activityVersion`). */
  version?: string;
  /** Default `<name>-<n>`, n counting this run's activities from 1. Retries add `.<attempt>`. */
  activityId?: string;
  taskList?: string;
  taskPriority?: string;
  scheduleToStartTimeout?: Duration | 'NONE';
  startToCloseTimeout?: Duration | 'NONE';
  scheduleToCloseTimeout?: Duration | 'NONE';
  heartbeatTimeout?: Duration | 'NONE';
  control?: string;
  retry?: RetryPolicy;
}

export interface ChildOptions {
  /** Default `<parent workflowId>-child-<n>` (SWF ids hold no colon). */
  workflowId?: string;
  taskList?: string;
  /** The child run's own policy for its children (the parent's policy for this child is the parent run's). */
  childPolicy?: 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON';
  executionStartToCloseTimeout?: Duration;
  taskStartToCloseTimeout?: Duration | 'NONE';
  tagList?: string[];
  control?: string;
}

export interface ChildHandle<T> {
  workflowId: string;
  /** The child's runId once it started. */
  started: Promise<string>;
  result: Promise<T>;
  signal(signalName: string, input?: unknown): Promise<void>;
  cancel(): Promise<void>;
}

export interface ContinueAsNewOptions {
  taskList?: string;
  executionStartToCloseTimeout?: Duration;
  taskStartToCloseTimeout?: Duration | 'NONE';
  childPolicy?: 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON';
  tagList?: string[];
  workflowTypeVersion?: string;
}

const timeout = (d: Duration | 'NONE' | undefined) => (d === undefined ? undefined : d === 'NONE' ? 'NONE' : swfSeconds(d));

/** Drops the members left undefined, so a decision carries only what the code set (the type's defaults apply). */
function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function decision(decisionType: string, attributes: Record<string, unknown>): Decision {
  const key = `${decisionType[0]!.toLowerCase()}${decisionType.slice(1)}DecisionAttributes`;
  return { decisionType, [key]: defined(attributes) };
}

/** A wait the run's cancellation ends: activities, timers, children, signals in progress. */
interface OpenWait { cancel(): void }

/**
 * What a workflow function gets: every SWF command as an awaitable call. Calls issue commands in
 * the order the code makes them; on replay the same calls are matched with the recorded events.
 */
export class WorkflowContext implements RunListener {
  private activities = 0;
  private timers = 0;
  private children = 0;
  private readonly open = new Set<OpenWait>();
  private readonly inbox = new Map<string, unknown[]>();
  private readonly received = new Map<string, unknown[]>();
  private readonly waiting: Array<{ name: string; deliver(value: unknown): void }> = [];
  private cancelEvent: WireEvent | undefined;

  constructor(private readonly run: WorkflowRun, private readonly defaults: { activityVersion: string }) {}

  /** The run: ids, type, input as recorded, start time. */
  get info(): RunInfo {
    return this.run.info;
  }

  /** The time of the decision task the code runs in (never the wall clock). */
  now(): Date {
    return new Date(this.run.now());
  }

  /** The run's seeded random numbers, the same on every replay (Math.random inside a workflow is this too). */
  random(): number {
    return this.run.nextRandom();
  }

  /** A UUID (version 4 layout) from the run's random numbers. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.random() * 16).toString(16));
    hex[12] = '4';
    hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** True once the run was asked to cancel. */
  get cancelRequested(): boolean {
    return this.cancelEvent !== undefined;
  }

  all<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
    return Promise.all(values);
  }

  race<T extends readonly unknown[] | []>(values: T): Promise<Awaited<T[number]>> {
    return Promise.race(values);
  }

  // --- activities --------------------------------------------------------------------------------

  /** Runs an activity and resolves to its result (rejects with ActivityFailure or CancelledFailure). */
  activity<I, O>(type: TypedActivity<I, O>, input: I, o?: ActivityOptions): Promise<O>;
  activity<T = unknown>(type: string | TypeRef, input?: unknown, o?: ActivityOptions): Promise<T>;
  async activity<T = unknown>(type: string | TypeRef, input?: unknown, o: ActivityOptions = {}): Promise<T> {
    const ref = typeof type === 'string' ? { name: type, version: o.version ?? this.defaults.activityVersion } : { name: type.name, version: type.version };
    const baseId = o.activityId ?? `${ref.name}-${++this.activities}`;
    const policy = o.retry ?? {};
    const attempts = Math.max(1, policy.maximumAttempts ?? 1);
    const first = durationToMs(policy.initialInterval ?? 1000);
    const cap = durationToMs(policy.maximumInterval ?? first * 100);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.scheduleOnce<T>(ref, attempt === 1 ? baseId : `${baseId}.${attempt}`, input, o);
      } catch (e) {
        const last = attempt >= attempts || !(e instanceof ActivityFailure) || (policy.nonRetryable ?? []).includes(e.reason) || this.cancelRequested;
        if (last) throw e;
        await this.sleep(Math.min(cap, first * (policy.backoffCoefficient ?? 2) ** (attempt - 1)));
      }
    }
  }

  private scheduleOnce<T>(ref: TypeRef, activityId: string, input: unknown, o: ActivityOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const wait = this.track(() => {
        this.run.issue({ kind: 'cancelActivity', id: activityId, decision: decision('RequestCancelActivityTask', { activityId }) });
        reject(new CancelledFailure(`activity ${activityId} canceled: the workflow was asked to cancel`));
      });
      this.run.issue({
        kind: 'activity', id: activityId,
        decision: decision('ScheduleActivityTask', {
          activityType: ref, activityId, input: encode(input), control: o.control,
          taskList: o.taskList ? { name: o.taskList } : undefined, taskPriority: o.taskPriority,
          scheduleToStartTimeout: timeout(o.scheduleToStartTimeout), startToCloseTimeout: timeout(o.startToCloseTimeout),
          scheduleToCloseTimeout: timeout(o.scheduleToCloseTimeout), heartbeatTimeout: timeout(o.heartbeatTimeout),
        }),
        recorded: (e, refused) => {
          if (!refused) return;
          wait.done();
          reject(new ActivityFailure(activityId, String(attrs(e).cause), undefined, 'scheduleFailed'));
        },
        resolved: (e) => {
          wait.done();
          const a = attrs(e);
          if (e.eventType === 'ActivityTaskCompleted') resolve(decode<T>(a.result));
          else if (e.eventType === 'ActivityTaskFailed') reject(new ActivityFailure(activityId, String(a.reason ?? ''), a.details));
          else if (e.eventType === 'ActivityTaskTimedOut') reject(new ActivityFailure(activityId, String(a.timeoutType), a.details, 'timedOut'));
          else reject(new CancelledFailure(`activity ${activityId} canceled`, a.details));
        },
      });
    });
  }

  // --- timers ------------------------------------------------------------------------------------

  /** Waits for a timer (StartTimer); rejects with CancelledFailure if the run is asked to cancel meanwhile. */
  sleep(duration: Duration): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = this.startTimer(() => { wait.done(); resolve(); });
      const wait = this.track(() => { timer.cancel(); reject(new CancelledFailure('timer canceled: the workflow was asked to cancel')); });
      timer.start(duration);
    });
  }

  private startTimer(fired: () => void): { start(d: Duration): void; cancel(): void } {
    const timerId = `timer-${++this.timers}`;
    let live = true;
    return {
      start: (d) => {
        this.run.issue({
          kind: 'timer', id: timerId, decision: decision('StartTimer', { timerId, startToFireTimeout: swfSeconds(d) }),
          recorded: (_e, refused) => { if (refused) live = false; },
          resolved: () => { if (live) { live = false; fired(); } },
        });
      },
      cancel: () => {
        if (!live) return;
        live = false;
        this.run.issue({ kind: 'cancelTimer', id: timerId, decision: decision('CancelTimer', { timerId }) });
      },
    };
  }

  // --- signals -----------------------------------------------------------------------------------

  /**
   * The next signal of this name not read yet (its input, decoded); waits for one if none came. With
   * `timeout`, resolves to undefined when it passes first (a timer in the history, canceled when the
   * signal wins).
   */
  signal<T = unknown>(name: string, o: { timeout?: Duration } = {}): Promise<T | undefined> {
    const queued = this.inbox.get(name);
    if (queued?.length) return Promise.resolve(queued.shift() as T);
    return new Promise<T | undefined>((resolve, reject) => {
      let timer: ReturnType<WorkflowContext['startTimer']> | undefined;
      const waiter = { name, deliver: (value: unknown) => { wait.done(); timer?.cancel(); resolve(value as T); } };
      const wait = this.track(() => { this.unwait(waiter); timer?.cancel(); reject(new CancelledFailure('signal wait canceled: the workflow was asked to cancel')); });
      this.waiting.push(waiter);
      if (o.timeout !== undefined) {
        timer = this.startTimer(() => { wait.done(); this.unwait(waiter); resolve(undefined); });
        timer.start(o.timeout);
      }
    });
  }

  /** Every signal of this name received so far (decoded inputs), read or not. */
  signals<T = unknown>(name: string): readonly T[] {
    return (this.received.get(name) ?? []) as T[];
  }

  private unwait(w: { name: string }): void {
    const i = this.waiting.indexOf(w as (typeof this.waiting)[number]);
    if (i >= 0) this.waiting.splice(i, 1);
  }

  /** RunListener: a WorkflowExecutionSignaled event. */
  onSignal(name: string, input: string | undefined): void {
    const value = decode(input);
    const all = this.received.get(name) ?? [];
    all.push(value);
    this.received.set(name, all);
    const i = this.waiting.findIndex((w) => w.name === name);
    if (i >= 0) this.waiting.splice(i, 1)[0]!.deliver(value);
    else this.inbox.set(name, [...(this.inbox.get(name) ?? []), value]);
  }

  // --- cancellation --------------------------------------------------------------------------------

  /** RunListener: WorkflowExecutionCancelRequested ends every wait in progress with CancelledFailure. */
  onCancelRequested(e: WireEvent): void {
    if (this.cancelEvent) return;
    this.cancelEvent = e;
    for (const w of [...this.open]) w.cancel();
  }

  private track(cancel: () => void): { done(): void } {
    const w: OpenWait = { cancel: () => { this.open.delete(w); cancel(); } };
    this.open.add(w);
    return { done: () => { this.open.delete(w); } };
  }

  // --- children and other runs -----------------------------------------------------------------------

  /** Starts a child workflow and resolves to its result. */
  child<T = unknown>(type: TypeRef, input?: unknown, o: ChildOptions = {}): Promise<T> {
    return this.startChild<T>(type, input, o).result;
  }

  startChild<T = unknown>(type: TypeRef, input?: unknown, o: ChildOptions = {}): ChildHandle<T> {
    const workflowId = o.workflowId ?? `${this.info.workflowId}-child-${++this.children}`;
    let startedResolve!: (runId: string) => void;
    let startedReject!: (e: Error) => void;
    const started = new Promise<string>((res, rej) => { startedResolve = res; startedReject = rej; });
    started.catch(() => undefined);
    let runId: string | undefined;
    const result = new Promise<T>((resolve, reject) => {
      const fail = (err: Error) => { wait.done(); startedReject(err); reject(err); };
      const wait = this.track(() => reject(new CancelledFailure(`wait for child ${workflowId} canceled: the workflow was asked to cancel`)));
      this.run.issue({
        kind: 'child', id: workflowId,
        decision: decision('StartChildWorkflowExecution', {
          workflowType: type, workflowId, input: encode(input), control: o.control, taskList: o.taskList ? { name: o.taskList } : undefined,
          childPolicy: o.childPolicy, executionStartToCloseTimeout: o.executionStartToCloseTimeout === undefined ? undefined : swfSeconds(o.executionStartToCloseTimeout),
          taskStartToCloseTimeout: timeout(o.taskStartToCloseTimeout), tagList: o.tagList,
        }),
        recorded: (e, refused) => { if (refused) fail(new ChildWorkflowFailure(workflowId, String(attrs(e).cause))); },
        resolved: (e) => {
          const a = attrs(e);
          switch (e.eventType) {
            case 'ChildWorkflowExecutionStarted': runId = a.workflowExecution?.runId; startedResolve(String(runId)); return;
            case 'ChildWorkflowExecutionCompleted': wait.done(); resolve(decode<T>(a.result)); return;
            case 'ChildWorkflowExecutionFailed': fail(new ChildWorkflowFailure(workflowId, String(a.reason ?? ''), a.details)); return;
            case 'ChildWorkflowExecutionTimedOut': fail(new ChildWorkflowFailure(workflowId, `timed out (${a.timeoutType})`)); return;
            case 'ChildWorkflowExecutionTerminated': fail(new ChildWorkflowFailure(workflowId, 'terminated')); return;
            case 'ChildWorkflowExecutionCanceled': wait.done(); reject(new CancelledFailure(`child ${workflowId} canceled`, a.details)); return;
            case 'StartChildWorkflowExecutionFailed': fail(new ChildWorkflowFailure(workflowId, String(a.cause))); return;
          }
        },
      });
    });
    return {
      workflowId, started, result,
      signal: (signalName, value) => this.signalExternal(workflowId, signalName, value, runId),
      cancel: () => this.cancelExternal(workflowId, runId),
    };
  }

  /** Signals another run (SignalExternalWorkflowExecution); resolves once it was delivered. */
  signalExternal(workflowId: string, signalName: string, input?: unknown, runId?: string): Promise<void> {
    return this.external('signalExternal', 'SignalExternalWorkflowExecution', { workflowId, runId, signalName, input: encode(input) }, 'ExternalWorkflowExecutionSignaled');
  }

  /** Asks another run to cancel (RequestCancelExternalWorkflowExecution); resolves once it was asked. */
  cancelExternal(workflowId: string, runId?: string): Promise<void> {
    return this.external('cancelExternal', 'RequestCancelExternalWorkflowExecution', { workflowId, runId }, 'ExternalWorkflowExecutionCancelRequested');
  }

  private external(kind: 'signalExternal' | 'cancelExternal', decisionType: string, a: Record<string, unknown>, success: string): Promise<void> {
    const workflowId = String(a.workflowId);
    return new Promise<void>((resolve, reject) => {
      const failed = (e: WireEvent) => reject(new Error(`${decisionType} to ${workflowId} failed: ${String(attrs(e).cause)}`));
      this.run.issue({
        kind, id: workflowId, decision: decision(decisionType, a),
        recorded: (e, refused) => { if (refused) failed(e); },
        resolved: (e) => { if (e.eventType === success) resolve(); else failed(e); },
      });
    });
  }

  // --- markers, side effects, continue-as-new ---------------------------------------------------------

  /** Records a marker (RecordMarker) with these details. */
  marker(name: string, details?: unknown): void {
    this.run.issue({ kind: 'marker', id: name, decision: decision('RecordMarker', { markerName: name, details: encode(details) }) });
  }

  /**
   * Runs `fn` once and records its value in a marker; every replay after reads the value from the
   * history instead of running `fn` again. `fn` runs outside the workflow's deterministic scope (it may
   * use the clock, timers, I/O).
   */
  sideEffect<T>(fn: () => T | Promise<T>, name = 'SideEffect'): Promise<T> {
    const recorded = this.run.peekRecorded();
    if (recorded?.kind === 'marker' && recorded.id === name) {
      const details = attrs(recorded.event).details as string | undefined;
      this.run.issue({ kind: 'marker', id: name, decision: decision('RecordMarker', { markerName: name, details }) });
      return Promise.resolve(decode<T>(details));
    }
    let value: T;
    const cmd: Command = this.run.issue({ kind: 'marker', id: name, decision: decision('RecordMarker', { markerName: name }) });
    const computed = outsideWorkflow(async () => {
      value = await fn();
      cmd.decision = decision('RecordMarker', { markerName: name, details: encode(value) });
    });
    this.run.waitFor(computed);
    return computed.then(() => value);
  }

  /** Ends this run and starts the next one of the same workflow with `input` (never returns). */
  continueAsNew(input?: unknown, o: ContinueAsNewOptions = {}): never {
    throw new ContinueAsNew({
      input: encode(input), taskList: o.taskList ? { name: o.taskList } : undefined,
      executionStartToCloseTimeout: o.executionStartToCloseTimeout === undefined ? undefined : swfSeconds(o.executionStartToCloseTimeout),
      taskStartToCloseTimeout: timeout(o.taskStartToCloseTimeout), childPolicy: o.childPolicy, tagList: o.tagList, workflowTypeVersion: o.workflowTypeVersion,
    });
  }

  /** Closes the run with this decision; issued again if SWF refuses it (new events came meanwhile). */
  close(d: Decision): void {
    const issue = () => this.run.issue({ kind: 'close', id: d.decisionType, decision: d, recorded: (_e, refused) => { if (refused) issue(); } });
    issue();
  }

  static closeDecision(outcome: { value: unknown } | { error: unknown }, cancelRequested: boolean): Decision {
    if ('value' in outcome) return decision('CompleteWorkflowExecution', { result: encode(outcome.value) });
    const e = outcome.error;
    if (e instanceof ContinueAsNew) return decision('ContinueAsNewWorkflowExecution', e.attributes);
    if (e instanceof CancelledFailure && cancelRequested) return decision('CancelWorkflowExecution', { details: e.details });
    const err = e instanceof Error ? e : new Error(String(e));
    return decision('FailWorkflowExecution', {
      reason: `${err.name}: ${err.message}`.slice(0, 256),
      details: JSON.stringify({ name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) }).slice(0, 32768),
    });
  }
}
