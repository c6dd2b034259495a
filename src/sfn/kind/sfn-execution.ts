import type { AnyActorRef } from 'xstate';
import { TransitionTooLargeError, type HistoryStore } from '../../history/history-store.js';
import { LiveExecution } from '../../engine/live-execution.js';
import { TrackedClock } from '../../engine/tracked-clock.js';
import type { EngineClock } from '../../engine/clock.js';
import type { SfnEventType, SfnLinkOp, SfnRecord, SfnServiceTask, SfnTaskRequest } from '../compile/contract.js';
import { advance, applyLinkOp, previousOf } from './event-links.js';
import type { SfnExecutionRecord } from './execution-records.js';
import { asStored, type SfnStoredEvent } from './sfn-events.js';
import { StoredText } from './stored-text.js';
import { resolveCause, shiftEnteredId } from '../compile/state-cause.js';
import { planTransition, type PartsExtra } from './transition-chunks.js';

/** A Task state's activity or service task as the host tracks it (for tokens, dispatch and re-queueing). */
export interface SfnTaskState {
  resource: string;
  /** An activity's input until it starts; a service task's parameters until nothing invokes it again. */
  input: string;
  scheduledEventId: number;
  /** `submitted`: a service task's request was accepted (TaskSubmitted). */
  status: 'scheduled' | 'started' | 'submitted' | 'closed';
  /** A service integration task: what it calls. */
  service?: SfnServiceTask;
  /** The Task state's name and how many tasks of that name the execution scheduled before this one. */
  state?: string;
  attempt?: number;
  /** Epoch ms of its TimeoutSeconds (service tasks). */
  deadline?: number;
}

/** The host's per-execution bookkeeping, persisted with every transition beside the root's snapshot. */
export interface SfnBook {
  lastEventId: number;
  /** Per chain (an actor, a Map visit): the previousEventId of its next event (see event-links.ts). */
  last: Record<string, number>;
  /** Per Map visit: positions of slots waiting for their next iteration. */
  queues?: Record<string, number[]>;
  tasks: Record<string, SfnTaskState>;
  /** Per actor: the id and state name of its last `<Type>StateEntered` (for causes that name the state). */
  entered?: Record<string, [number, string]>;
  /** Per Task state name: how many tasks the execution scheduled for it (a mock's `attempt`). */
  attempts?: Record<string, number>;
}

/** The `extra` payload of a Step Functions history message. */
export interface SfnTransitionExtra {
  snapshot: unknown;
  book: SfnBook;
  /**
   * The execution's next deadline once this transition is in (epoch ms; null: none): recovery arms
   * it as a sleeper's wake-up without rebuilding the actors. Absent in messages of older versions.
   */
  wakeAt?: number | null;
}

/** What a persisted transition asks the host to do next. */
export interface SfnCommit {
  events: SfnStoredEvent[];
  /** Tasks scheduled in this transition, to dispatch. */
  scheduled: SfnTaskRequest[];
  /** Task keys that closed in this transition. */
  closed: string[];
  /** Task keys started in this transition. */
  started: string[];
  /** Open tasks of actors that ended in this transition (a Parallel branch stopped by a failed sibling). */
  abandoned: string[];
}

/** The events the host itself records (ExecutionStarted): a pseudo actor id no machine uses. */
export const HOST_ACTOR = '~host';

const CLOSES_TASK = new Set<SfnEventType>(['ActivitySucceeded', 'ActivityFailed', 'ActivityTimedOut', 'TaskSucceeded', 'TaskFailed', 'TaskTimedOut', 'MapRunSucceeded', 'MapRunFailed']);

/**
 * One live Step Functions execution: its root actor, the events its machines recorded and not yet
 * persisted, the bookkeeping and the history fence. Work on it runs one at a time (`serial`).
 */
export class SfnExecution extends LiveExecution {
  actor: AnyActorRef | undefined;
  /** The clock the root actor runs on: it knows the deadlines the execution waits for. */
  readonly timers: TrackedClock;
  /** Recorded events not yet persisted, in order; `e: null` marks an actor that ended (its bookkeeping goes), or a link op. */
  private pending: { actorId: string; e: SfnRecord | null; op?: SfnLinkOp; at?: number }[] = [];
  private recordedPending = 0;
  private parsedInput: { v: unknown } | undefined;
  private flushQueued = false;
  readonly text: StoredText;

  constructor(
    readonly rec: SfnExecutionRecord,
    subject: string,
    store: HistoryStore,
    clock: EngineClock,
    private readonly onCommit: (x: SfnExecution, c: SfnCommit) => Promise<void>,
    private readonly onError: (x: SfnExecution, err: unknown) => void,
    public book: SfnBook = { lastEventId: 0, last: {}, tasks: {} },
    lastSeq = 0,
    /** Sequence of the last restore point (a complete transition); 0 before the first. */
    private restoreSeq = lastSeq,
    /** Checks the tasks scheduled since the last flush before they are stored (see withdraw). */
    private readonly vet?: (x: SfnExecution, scheduled: SfnTaskRequest[]) => Promise<void>,
  ) {
    super(subject, rec.executionArn, store, clock, lastSeq);
    this.timers = new TrackedClock(clock);
    this.text = new StoredText(rec.input);
  }

  /**
   * Where the actors that ended in this transition and the one before had entered their last state:
   * their failure's cause is often stored by the parent after the actor has left the book.
   */
  private endedNow = new Map<string, readonly [number, string]>();
  private endedBefore = new Map<string, readonly [number, string]>();

  /** The entered event id and name of an actor's current (or, just ended, last) state (for causes that name it). */
  readonly entered = (actorId: string): readonly [number, string] | undefined =>
    this.book.entered?.[actorId] ?? this.endedNow.get(actorId) ?? this.endedBefore.get(actorId);

  /**
   * Ids of the events withdrawn in the last flush, as the steps counted them: a cause a step wrote
   * before the withdrawal names a later entered event one id too high (see causeAsStored).
   */
  private withdrawnIds: number[] = [];

  /** The execution's closing cause as its ExecutionFailed event stores it. */
  causeAsStored(cause: string): string {
    // In the order they went: each id is counted after the ones withdrawn before it.
    const shifted = this.withdrawnIds.reduce((c, id) => shiftEnteredId(c, id), cause);
    return resolveCause(shifted, this.entered);
  }

  /**
   * Drops a task's ActivityScheduled before it is stored (its activity does not exist). The ids
   * after it move down by one, and so do the causes the steps wrote since that name them.
   */
  withdraw(key: string): void {
    let id = this.book.lastEventId;
    let gone: number | undefined;
    const kept: typeof this.pending = [];
    for (const p of this.pending) {
      if (p.e !== null) id += 1;
      if (p.e?.task?.key === key) {
        if (gone === undefined) {
          gone = id;
          this.withdrawnIds.push(id);
        }
        this.recordedPending -= 1;
        continue;
      }
      const cause = p.e?.details?.cause;
      kept.push(gone !== undefined && typeof cause === 'string' ? { ...p, e: { ...p.e!, details: { ...p.e!.details, cause: shiftEnteredId(cause, gone) } } } : p);
    }
    this.pending = kept;
  }

  get done(): boolean {
    return this.actor?.getSnapshot().status === 'done';
  }

  /** Events of this execution so far, persisted or not (ExecutionStarted included): the history quota's count. */
  get used(): number {
    return this.book.lastEventId + this.recordedPending;
  }

  /** `$$.Execution.Input`, parsed once. */
  get executionInput(): unknown {
    this.parsedInput ??= { v: JSON.parse(this.rec.input) };
    return this.parsedInput.v;
  }

  /** A child actor finished: its bookkeeping (last event ids, closed tasks) is dropped in order with the events. */
  ended(actorId: string): void {
    this.pending.push({ actorId, e: null });
  }

  /** Linking work of a machine without an event (in order with the events). */
  link(op: SfnLinkOp): void {
    this.pending.push({ actorId: '', e: null, op });
  }

  /** The hook target: a machine of this execution recorded an event. Persisted by the next flush. */
  record(actorId: string, e: SfnRecord): void {
    // Stamped now, when it happened: the flush may come a little later (a busy event loop).
    this.pending.push({ actorId, e, at: this.clock.now() });
    this.recordedPending += 1;
    if (this.flushQueued) return;
    this.flushQueued = true;
    // Events from a delayed transition (a timeout, a Wait) have no caller to flush them: do it in turn.
    queueMicrotask(() => {
      this.flushQueued = false;
      if (this.pending.length === 0 || this.isDead) return;
      this.serial(() => this.flush()).catch((err) => this.onError(this, err));
    });
  }

  /** Turns the recorded events into stored ones (ids, previousEventIds, task bookkeeping). */
  private take(): SfnCommit {
    const at = this.clock.now();
    const c: SfnCommit = { events: [], scheduled: [], closed: [], started: [], abandoned: [] };
    this.recordedPending = 0;
    this.endedBefore = this.endedNow;
    this.endedNow = new Map();
    for (const { actorId, e, op, at: recordedAt } of this.pending.splice(0)) {
      if (e === null) {
        if (op) applyLinkOp(this.book, op);
        else c.abandoned.push(...forgetActor(this.book, actorId, this.endedNow));
        continue;
      }
      const id = ++this.book.lastEventId;
      const prev = previousOf(this.book, actorId, e.link);
      c.events.push({ type: e.type, id, at: recordedAt ?? at, attrs: this.text.details(e.details ?? {}, this.entered), prev });
      advance(this.book, actorId, id, e.link);
      if (e.type.endsWith('StateEntered')) (this.book.entered ??= {})[actorId] = [id, String(e.details?.name ?? '')];
      // A Distributed Map's map run (MapRunStarted) is booked as a task too: a restore dispatches it again until it closes.
      if (e.task) {
        this.book.tasks[e.task.key] = scheduledTask(this.book, e.task, this.text.json(e.task.input), id);
        c.scheduled.push(e.task);
      } else if (e.taskKey && this.book.tasks[e.taskKey]) {
        const t = this.book.tasks[e.taskKey]!;
        // An activity's input is handed out once, when it starts: the book keeps no copy after that.
        // A service task keeps its parameters while a restart would invoke it again.
        if (e.type === 'ActivityStarted' || e.type === 'TaskStarted') { this.book.tasks[e.taskKey] = { ...t, status: 'started', input: t.service ? t.input : '' }; c.started.push(e.taskKey); }
        if (e.type === 'TaskSubmitted') this.book.tasks[e.taskKey] = { ...t, status: 'submitted', input: t.service?.pattern === 'waitForTaskToken' ? '' : t.input };
        if (CLOSES_TASK.has(e.type)) { this.book.tasks[e.taskKey] = { ...t, status: 'closed', input: '' }; c.closed.push(e.taskKey); }
      }
    }
    return c;
  }

  /**
   * Persists what the machines recorded since the last flush (one message: events, snapshot and
   * bookkeeping, behind the fence), then lets the host act on it. Call inside `serial`.
   */
  async flush(): Promise<SfnStoredEvent[]> {
    this.withdrawnIds = [];
    const scheduled = this.pending.flatMap((p) => (p.e?.task ? [p.e.task] : []));
    if (scheduled.length > 0 && this.vet && !this.isDead) await this.vet(this, scheduled);
    if (this.pending.length === 0 || this.isDead) return [];
    const c = this.take();
    const next = this.timers.nextDeadline();
    const extra: SfnTransitionExtra = { snapshot: this.snapshotToStore(), book: this.book, wakeAt: Number.isFinite(next) ? next : null };
    try {
      try {
        await this.append(c.events, extra);
      } catch (e) {
        if (!(e instanceof TransitionTooLargeError)) throw e;
        await this.appendSplit(c.events, extra);
      }
      this.restoreSeq = this.lastSeq;
    } catch (e) {
      // The live copy no longer matches the stored history: it must be rebuilt from the last message.
      this.kill();
      throw e;
    }
    await this.onCommit(this, c);
    return c.events;
  }

  /** What a transition stores to be rebuilt from: the root's persisted snapshot. */
  protected snapshotToStore(): unknown {
    return this.actor?.getPersistedSnapshot();
  }

  /**
   * A transition too large for one message (many events, or the snapshot of many wide branches):
   * several in a row, the last one the restore point (see transition-chunks.ts).
   */
  private async appendSplit(events: SfnStoredEvent[], extra: SfnTransitionExtra): Promise<void> {
    const plan = planTransition(events, extra, this.restoreSeq);
    const parts: number[] = [];
    for (const m of plan.leading) {
      await this.append(m.events, m.extra);
      if (m.isPart) parts.push(this.lastSeq);
    }
    const last = plan.last.extra as Partial<PartsExtra>;
    if (last.parts) last.parts = parts;
    await this.append(plan.last.events, plan.last.extra);
  }

  /** One history message behind the fence; transient failures are retried with the same msgID (for seconds: a leader election). */
  private async append(events: SfnStoredEvent[], extra: unknown): Promise<void> {
    await this.appendFenced(asStored(events), extra);
  }

  nextDeadline(): number {
    return this.timers.nextDeadline();
  }

  /** Stops the actor; the execution must be rebuilt from its last history message before further use. */
  protected stopActors(): void {
    this.actor?.stop();
    this.timers.clearAll();
  }

  override kill(): void {
    super.kill();
    this.pending = [];
    this.recordedPending = 0;
  }
}

/**
 * An ended actor and its descendants (ids `<actorId>/…`) record nothing more: their last-event ids
 * and closed tasks leave the book, which a wide Map would otherwise grow by one entry per iteration
 * (and which every history message carries). A late answer to such a task is TaskDoesNotExist.
 * Answers the keys of the tasks still open (their state was stopped); a service task among them is closed.
 */
function forgetActor(book: SfnBook, actorId: string, ended: Map<string, readonly [number, string]>): string[] {
  const mine = (k: string) => k === actorId || k.startsWith(`${actorId}/`) || k.startsWith(`${actorId}#`);
  for (const k of Object.keys(book.last)) if (mine(k)) delete book.last[k];
  if (book.queues) for (const k of Object.keys(book.queues)) if (mine(k)) delete book.queues[k];
  if (book.entered) for (const k of Object.keys(book.entered)) if (mine(k)) { ended.set(k, book.entered[k]!); delete book.entered[k]; }
  const open: string[] = [];
  for (const [k, t] of Object.entries(book.tasks)) {
    if (!mine(k)) continue;
    if (t.status === 'closed') delete book.tasks[k];
    else {
      open.push(k);
      // A service task of an ended branch is never invoked again (a restart would otherwise).
      if (t.service) book.tasks[k] = { ...t, status: 'closed', input: '' };
    }
  }
  return open;
}

/** The book's entry of a task just scheduled; counts the scheduling of its state name. */
function scheduledTask(book: SfnBook, task: SfnTaskRequest, input: string, scheduledEventId: number): SfnTaskState {
  const t: SfnTaskState = { resource: task.resource, input, scheduledEventId, status: 'scheduled' };
  if (task.service) t.service = task.service;
  if (task.deadline !== undefined) t.deadline = task.deadline;
  if (task.state !== undefined) {
    const attempts = (book.attempts ??= {});
    t.state = task.state;
    t.attempt = attempts[task.state] ?? 0;
    attempts[task.state] = t.attempt + 1;
  }
  return t;
}
