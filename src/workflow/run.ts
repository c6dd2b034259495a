import type { WireEvent } from '../sdk/client.js';
import { runDeterministic, seededRandom } from './determinism.js';
import { NondeterminismError, type Divergence } from './errors.js';
import { attrs, HistoryIndex, type CommandKind, type DecisionEvent } from './history-index.js';

/** A decision as SWF takes it (`decisionType` plus its `…DecisionAttributes`). */
export type Decision = { decisionType: string } & Record<string, unknown>;

/** What the framework does when the event recording a command (or a later one about it) comes. */
export interface CommandHooks {
  /** The decision event itself: `refused` when it is a …Failed event (the decision was not carried out). */
  recorded?(event: WireEvent, refused: boolean): void;
  /** A later event that names this command's event (completed, fired, started, failed…). */
  resolved?(event: WireEvent): void;
}

export interface Command extends CommandHooks {
  kind: CommandKind;
  id: string;
  decision: Decision;
  /** Set when the decision event for it is known (replay) or after it is recorded. */
  eventId?: number;
}

/** The run facts a workflow's code may read. */
export interface RunInfo {
  workflowId: string;
  runId: string;
  workflowType: { name: string; version: string };
  taskList?: string;
  /** The run's input as the history holds it. */
  input?: string;
  /** When the run started (ms). */
  startedAt: number;
  /** How many runs came before this one by ContinueAsNew (from the started event's continuedExecutionRunId: 0 or 1 known). */
  continuedFromRunId?: string;
}

/** The handlers of the run-level events: signals and the request to cancel. */
export interface RunListener {
  onSignal(name: string, input: string | undefined): void;
  onCancelRequested(event: WireEvent): void;
}

/** Events that name an earlier decision event of the run, by the attribute that names it. */
const REFERS: Record<string, string> = {
  ActivityTaskCompleted: 'scheduledEventId', ActivityTaskFailed: 'scheduledEventId',
  ActivityTaskTimedOut: 'scheduledEventId', ActivityTaskCanceled: 'scheduledEventId',
  TimerFired: 'startedEventId',
  ChildWorkflowExecutionStarted: 'initiatedEventId', ChildWorkflowExecutionCompleted: 'initiatedEventId',
  ChildWorkflowExecutionFailed: 'initiatedEventId', ChildWorkflowExecutionTimedOut: 'initiatedEventId',
  ChildWorkflowExecutionCanceled: 'initiatedEventId', ChildWorkflowExecutionTerminated: 'initiatedEventId',
  StartChildWorkflowExecutionFailed: 'initiatedEventId',
  ExternalWorkflowExecutionSignaled: 'initiatedEventId', SignalExternalWorkflowExecutionFailed: 'initiatedEventId',
  ExternalWorkflowExecutionCancelRequested: 'initiatedEventId', RequestCancelExternalWorkflowExecutionFailed: 'initiatedEventId',
};

/** Lets every promise continuation queued so far run: workflow code awaits nothing but the framework's promises. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ReplayResult {
  /** The decisions to answer: the commands the code issued beyond what the history records. */
  decisions: Decision[];
  divergence?: Divergence;
  /** How the function ended, if it did (the close decision is among `decisions` or in the history). */
  closed: boolean;
}

/**
 * One replay of a run's history through its workflow code: the code runs from the start; the n-th
 * command it issues must be the one the n-th decision event records (same kind, same id), and the
 * events after it are handed to the code in history order, each followed by the code's reaction.
 * What the code issues beyond the recorded decisions is the answer to the decision task. The same
 * code path serves a live decision task and a check of an old history (the replayer).
 */
export class WorkflowRun {
  readonly index: HistoryIndex;
  readonly commands: Command[] = [];
  readonly info: RunInfo;
  private nowMs: number;
  private readonly random: () => number;
  private divergence: Divergence | undefined;
  private listener: RunListener | undefined;
  private closed = false;
  private readonly byEventId = new Map<number, Command>();
  private readonly pending = new Set<Promise<void>>();
  /** A side effect that threw: its value cannot be recorded, so the decision task is not answered (it is retried). */
  private effectError: unknown;

  /** `execution`: the run's ids (a decision task names them; the history's first event does not). */
  constructor(events: WireEvent[], execution: { workflowId: string; runId: string } = { workflowId: '', runId: '' }) {
    this.index = new HistoryIndex(events);
    const start = events[0];
    if (start?.eventType !== 'WorkflowExecutionStarted') throw new Error('a history starts with WorkflowExecutionStarted');
    const a = attrs(start);
    this.info = {
      workflowId: execution.workflowId, runId: execution.runId,
      workflowType: a.workflowType, taskList: a.taskList?.name, input: a.input, startedAt: start.eventTimestamp * 1000,
      ...(a.continuedExecutionRunId ? { continuedFromRunId: a.continuedExecutionRunId } : {}),
    };
    this.nowMs = this.index.runsAt[0] ?? this.info.startedAt;
    // Seeded from the history alone, so a replay from a saved history (no ids) draws the same numbers.
    this.random = seededRandom(`${this.info.startedAt}/${a.input ?? ''}/${a.workflowType?.name}/${a.continuedExecutionRunId ?? ''}`);
  }

  /** The code's clock: the time of the decision task it runs in. */
  now(): number {
    return this.nowMs;
  }

  nextRandom(): number {
    return this.random();
  }

  /** The recorded decision event for the next command, if the history goes that far (side effects read it). */
  peekRecorded(): DecisionEvent | undefined {
    return this.index.decisions[this.commands.length];
  }

  /**
   * Issues a command: checked against the decision the history recorded at its place, if any. A
   * mismatch stops the replay (the first divergence is what the worker reports).
   */
  issue(cmd: Command): Command {
    const k = this.commands.length;
    this.commands.push(cmd);
    if (this.divergence) return cmd;
    const recorded = this.index.decisions[k];
    if (recorded) {
      if (recorded.kind !== cmd.kind || recorded.id !== cmd.id) {
        this.diverge({
          commandIndex: k, event: { eventId: recorded.event.eventId, eventType: recorded.event.eventType, id: recorded.id }, command: { kind: cmd.kind, id: cmd.id },
          message: `command ${k + 1} of the code is ${cmd.kind} '${cmd.id}', but the history recorded ${recorded.event.eventType} '${recorded.id}' (event ${recorded.event.eventId}) there`,
        });
        return cmd;
      }
      cmd.eventId = recorded.event.eventId;
      this.byEventId.set(recorded.event.eventId, cmd);
    }
    return cmd;
  }

  private diverge(d: Divergence): void {
    this.divergence ??= d;
  }

  /** Runs the code through the history; `start` calls the workflow function (inside the deterministic scope). */
  async replay(start: () => Promise<void>, listener: RunListener): Promise<ReplayResult> {
    this.listener = listener;
    const source = { nowMs: () => this.nowMs, random: () => this.random() };
    const done = runDeterministic(source, start).then(() => { this.closed = true; });
    await settle();
    const events = this.index.events;
    for (let i = 1; i < events.length && !this.divergence; i++) {
      this.nowMs = this.index.runsAt[i]!;
      if (this.deliver(events[i]!)) await settle();
      await this.sideEffectsDone();
    }
    this.nowMs = this.index.runsAt[events.length - 1] ?? this.nowMs;
    await settle();
    await this.sideEffectsDone();
    if (!this.divergence && this.commands.length < this.index.decisions.length) {
      const missing = this.index.decisions[this.commands.length]!;
      this.diverge({
        commandIndex: this.commands.length, event: { eventId: missing.event.eventId, eventType: missing.event.eventType, id: missing.id },
        message: `the history recorded ${missing.event.eventType} '${missing.id}' (event ${missing.event.eventId}) as command ${this.commands.length + 1}, but the code issued no command there`,
      });
    }
    void done;
    if (this.effectError !== undefined) throw this.effectError;
    const fresh = this.commands.slice(this.index.decisions.length);
    return { decisions: this.divergence ? [] : fresh.map((c) => c.decision), closed: this.closed, ...(this.divergence ? { divergence: this.divergence } : {}) };
  }

  /** Hands one event to the code; true when it may have reacted. */
  private deliver(e: WireEvent): boolean {
    const at = this.index.decisionAt.get(e.eventId);
    if (at !== undefined) {
      const rec = this.index.decisions[at]!;
      const cmd = this.commands[at];
      if (!cmd) {
        this.diverge({
          commandIndex: at, event: { eventId: e.eventId, eventType: e.eventType, id: rec.id },
          message: `the history recorded ${e.eventType} '${rec.id}' (event ${e.eventId}) as command ${at + 1}, but the code had issued only ${this.commands.length} commands by then`,
        });
        return false;
      }
      cmd.recorded?.(e, rec.refused);
      return rec.refused;
    }
    const ref = REFERS[e.eventType];
    if (ref) {
      this.byEventId.get(Number(attrs(e)[ref]))?.resolved?.(e);
      return true;
    }
    if (e.eventType === 'WorkflowExecutionSignaled') {
      const a = attrs(e);
      this.listener!.onSignal(String(a.signalName), a.input);
      return true;
    }
    if (e.eventType === 'WorkflowExecutionCancelRequested') {
      this.listener!.onCancelRequested(e);
      return true;
    }
    return false;
  }

  /** Makes the decisions wait for a side effect computing its command's details. */
  waitFor(p: Promise<void>): void {
    this.pending.add(p);
    p.then(() => this.pending.delete(p), (e: unknown) => { this.pending.delete(p); this.effectError ??= e; });
  }

  private async sideEffectsDone(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending]);
      await settle();
    }
  }

  /** Throws the divergence, for callers that want an error rather than a result. */
  static assertNoDivergence(r: ReplayResult): void {
    if (r.divergence) throw new NondeterminismError(r.divergence);
  }
}
