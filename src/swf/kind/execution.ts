import type { HistoryEvent } from '../../../machines/swf/history-event.js';
import { activityByScheduled, foldEvent, foldHistory, type ExecutionState } from '../../../machines/swf/execution-state.js';
import { Fault } from '../../protocol/faults.js';
import { TransitionTooLargeError, type HistoryStore } from '../../history/history-store.js';
import { LiveExecution } from '../../engine/live-execution.js';
import { EventBatch } from './event-batch.js';
import { ExecutionActors, type MachineSet } from './execution-actors.js';
import { EventLog } from '../../history/event-log.js';
import { GatedClock } from '../../engine/gated-clock.js';
import { unavailableFault } from '../../nats/unavailable.js';

export interface RunKey {
  domain: string;
  workflowId: string;
  runId: string;
  partition: number;
}

/** What a run needs from its owner; the owner provides NATS-backed effects. */
export interface RunHost {
  store: HistoryStore;
  machines: MachineSet;
  subject(key: RunKey): string;
  /** After a transition is persisted: enqueue new tasks, remove dead ones, close the run. */
  afterCommit(run: Execution, events: readonly HistoryEvent[]): Promise<void>;
  /** Another writer won the fence, or the store failed for good: drop and rebuild the run. */
  invalidate(run: Execution, err: unknown): void;
  onError(run: Execution, err: unknown): void;
}

/** SWF's hard limit on events per run: past it the run is terminated (EVENT_LIMIT_EXCEEDED). */
export const MAX_HISTORY_EVENTS = 25_000;

/**
 * One live run: its history, its actors and the fence of its next append. Every change goes
 * through `transact`, one at a time: build events from the current state, append them to
 * JetStream, then feed them to the actors (persist, then act).
 */
export class Execution extends LiveExecution {
  /** The run's history: the first event, an index, recent transitions; older ones are read back on demand. */
  readonly log: EventLog;
  readonly actors: ExecutionActors;

  /**
   * Built from the run's first stored transition; a rebuild feeds the rest with `replay` and then
   * calls `replayed`. Meanwhile the actors' timers are held (a deadline already past must not fire
   * before the later transitions are in).
   */
  constructor(readonly key: RunKey, private readonly host: RunHost, first: { events: HistoryEvent[]; seq: number; bytes?: number }, replaying = false) {
    super(host.subject(key), key.runId, host.store, host.machines.clock, first.seq);
    this.log = new EventLog((seq) => host.store.readTransition(seq));
    if (replaying) this.gate = new GatedClock(host.machines.clock);
    this.actors = new ExecutionActors(host.machines, {
      workflowTimedOut: () => this.later((s, b) => {
        if (s.closeStatus) return;
        b.add('WorkflowExecutionTimedOut', { timeoutType: 'START_TO_CLOSE', childPolicy: s.started.childPolicy });
      }),
      decisionTimedOut: (scheduledEventId, timeoutType) => this.later((s, b) => {
        if (s.decision?.scheduledEventId !== scheduledEventId) return;
        b.add('DecisionTaskTimedOut', { timeoutType, scheduledEventId, startedEventId: s.decision.startedEventId ?? 0 });
      }),
      activityTimedOut: (scheduledEventId, timeoutType, details) => this.later((s, b) => {
        const act = activityByScheduled(s, scheduledEventId);
        if (!act) return;
        b.add('ActivityTaskTimedOut', { timeoutType, scheduledEventId, startedEventId: act.startedEventId ?? 0, details });
      }),
      timerFired: (timerId) => this.later((s, b) => {
        const startedEventId = s.timers[timerId];
        if (startedEventId === undefined) return;
        b.add('TimerFired', { timerId, startedEventId });
      }),
      actorError: (err) => host.onError(this, err),
    }, first.events[0]!, this.gate);
    this.log.push(first.events, first.seq, first.bytes);
    this.actors.apply(first.events);
  }

  /** Holds the actors' timers while a rebuild streams the history in. */
  private gate: GatedClock | undefined;

  /** Feeds the next stored transition of a rebuild. */
  replay(events: HistoryEvent[], seq: number, bytes?: number): void {
    this.log.push(events, seq, bytes);
    this.lastSeq = seq;
    this.actors.apply(events);
  }

  /** The whole history is in: the actors' timers run (each at its original deadline). */
  replayed(): void {
    this.gate?.open();
    this.gate = undefined;
  }

  get state(): ExecutionState {
    return this.actors.workflow.getSnapshot().context.execution;
  }

  get isClosed(): boolean {
    return this.state.closeStatus !== null;
  }

  /** A timer of an actor came due: append its event in turn (it is a no-op if the state moved on). */
  private later(build: (s: ExecutionState, b: EventBatch) => void): void {
    this.serial(() => this.commit(build)).catch((err) => this.host.onError(this, err));
  }

  /**
   * Builds one transition and persists it. Call inside `serial`. Adds the follow-up decision task
   * when the transition leaves the run open, with no decision task, and something to decide.
   */
  async commit(build: (s: ExecutionState, b: EventBatch) => void, atLimit = false): Promise<HistoryEvent[]> {
    const state = this.state;
    const batch = new EventBatch(state.lastEventId + 1, this.host.machines.clock.now());
    build(state, batch);
    if (batch.events.length === 0) return [];
    if (!atLimit && state.lastEventId + batch.events.length >= MAX_HISTORY_EVENTS) {
      // The last slot goes to the termination.
      await this.commit((s, b) => { b.add('WorkflowExecutionTerminated', { childPolicy: s.started.childPolicy, cause: 'EVENT_LIMIT_EXCEEDED' }); }, true);
      throw new Fault('UnknownResourceFault', `execution terminated: its history reached ${MAX_HISTORY_EVENTS} events`);
    }
    let after = foldHistory(batch.events, state);
    if (after.closeStatus === null && after.decision === null && after.needsDecision) {
      // The follow-up decision task would be event 25,000: the termination takes that slot instead.
      if (batch.peekNextId >= MAX_HISTORY_EVENTS) batch.add('WorkflowExecutionTerminated', { childPolicy: state.started.childPolicy, cause: 'EVENT_LIMIT_EXCEEDED' });
      else batch.add('DecisionTaskScheduled', {
        taskList: { name: after.decisionTaskList },
        taskPriority: state.started.taskPriority,
        startToCloseTimeout: state.started.taskStartToCloseTimeout,
        scheduleToStartTimeout: after.decisionScheduleToStart ?? undefined,
      });
      after = foldEvent(after, batch.events[batch.events.length - 1]!);
    }
    await this.append(batch.events);
    this.log.push(batch.events, this.lastSeq);
    // The workflow actor takes the fold already made instead of folding the batch again.
    this.actors.apply(batch.events, after);
    await this.host.afterCommit(this, batch.events);
    return batch.events;
  }

  private async append(events: HistoryEvent[]): Promise<void> {
    try {
      await this.appendFenced(events);
    } catch (e) {
      if (e instanceof TransitionTooLargeError) {
        throw new Fault('ValidationException', `this request would add ${e.bytes} bytes of history in one transition; the limit is about 960 KB`);
      }
      this.kill();
      this.host.invalidate(this, e);
      throw unavailableFault(e) ?? new Fault('InternalFailure', 'could not persist the transition', { cause: e });
    }
  }

  nextDeadline(): number {
    return this.actors.nextDeadline();
  }

  protected stopActors(): void {
    this.actors.stopAll();
  }
}
