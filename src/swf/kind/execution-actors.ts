import { createActor, type Actor, type AnyActorRef, type InspectionEvent, type Observer } from 'xstate';
import type { HistoryEvent, TimeoutType } from '../../../machines/swf/history-event.js';
import type { ExecutionState } from '../../../machines/swf/execution-state.js';
import { createActivityTaskMachine, type ActivityTaskMachine } from '../../../machines/swf/activity-task.machine.js';
import { createDecisionTaskMachine, type DecisionTaskMachine } from '../../../machines/swf/decision-task.machine.js';
import { createTimerMachine, type TimerMachine } from '../../../machines/swf/timer.machine.js';
import { createWorkflowExecutionMachine, type WorkflowExecutionMachine } from '../../../machines/swf/workflow-execution.machine.js';
import { durationMs } from '../../protocol/durations.js';
import type { EngineClock } from '../../engine/clock.js';

/** What the actors of one run report: the runtime turns each into history (persist, then act). */
export interface ActorReports {
  workflowTimedOut(): void;
  decisionTimedOut(scheduledEventId: number, timeoutType: TimeoutType): void;
  activityTimedOut(scheduledEventId: number, timeoutType: TimeoutType, details: string | undefined): void;
  timerFired(timerId: string): void;
  actorError(err: unknown): void;
}

/** The machines, built once per clock. */
export interface MachineSet {
  workflow: WorkflowExecutionMachine;
  decision: DecisionTaskMachine;
  activity: ActivityTaskMachine;
  timer: TimerMachine;
  clock: EngineClock;
  /** Options of every createActor: the clock, plus `inspect` only when the node's inspector is on. */
  actorOptions: { clock: EngineClock; inspect?: Observer<InspectionEvent> };
}

/** Each actor's report target; machines are provided once, and their actions look it up by `self`. */
const reporters = new WeakMap<AnyActorRef, (...args: any[]) => void>();
const report = (self: AnyActorRef, ...args: unknown[]) => reporters.get(self)?.(...args);

export function createMachineSet(clock: EngineClock, inspect?: Observer<InspectionEvent>): MachineSet {
  return {
    workflow: createWorkflowExecutionMachine(clock).provide({ actions: { reportTimeout: ({ self }) => report(self) } }),
    decision: createDecisionTaskMachine(clock).provide({ actions: { reportTimeout: ({ self }, p) => report(self, p.timeoutType) } }),
    activity: createActivityTaskMachine(clock).provide({
      actions: { reportTimeout: ({ self, context }, p) => report(self, p.timeoutType, context.heartbeatDetails) },
    }),
    timer: createTimerMachine(clock).provide({ actions: { reportFired: ({ self }) => report(self) } }),
    clock,
    actorOptions: inspect ? { clock, inspect } : { clock },
  };
}

const ms = (v: unknown): number | null => (typeof v === 'string' ? durationMs(v) : null);

/**
 * Sends a persisted event to a task/timer actor unless it already finished: an actor whose own
 * timeout fired is final before its TimedOut/TimerFired event is persisted and fed back.
 */
function deliver<A extends AnyActorRef>(actor: A | undefined, e: Parameters<A['send']>[0]): void {
  if (actor?.getSnapshot().status === 'active') actor.send(e);
}

/**
 * The live actors of one run: the execution actor and one root actor per open task and timer
 * (a flat registry, ARCHITECTURE decision 5). Feeding history events here is both how the live
 * run moves on and how a run is rebuilt.
 */
export class ExecutionActors {
  readonly workflow: Actor<WorkflowExecutionMachine>;
  decision: Actor<DecisionTaskMachine> | undefined;
  readonly activities = new Map<number, Actor<ActivityTaskMachine>>();
  readonly timers = new Map<string, Actor<TimerMachine>>();

  private readonly options: MachineSet['actorOptions'];

  /** `clock`: the actors' timer clock when it is not the machines' own (a rebuild's GatedClock). */
  constructor(private readonly m: MachineSet, private readonly reports: ActorReports, started: HistoryEvent, clock?: EngineClock) {
    this.options = clock ? { ...m.actorOptions, clock } : m.actorOptions;
    const timeout = ms(started.attrs.executionStartToCloseTimeout) ?? 0;
    this.workflow = this.start(
      createActor(m.workflow, { input: { startToCloseDeadline: started.at + timeout }, ...this.options }),
      () => reports.workflowTimedOut(),
    );
  }

  private start<A extends AnyActorRef>(actor: A, onReport: (...args: any[]) => void): A {
    reporters.set(actor, onReport);
    actor.subscribe({ error: (err) => this.reports.actorError(err) });
    actor.start();
    return actor;
  }

  /**
   * Feeds events (already persisted) to every actor they concern. The workflow actor takes them in
   * one step (with `execution`, their fold when the caller has it), except when the inspector is on:
   * then it gets each event, so the inspector shows every one.
   */
  apply(events: readonly HistoryEvent[], execution?: ExecutionState): void {
    if (this.options.inspect) for (const e of events) this.workflow.send(e);
    else this.workflow.send({ type: 'history.batch', events, execution });
    for (const e of events) this.route(e);
    if (this.workflow.getSnapshot().context.execution.closeStatus) this.stopAll();
  }

  private route(e: HistoryEvent): void {
    const a = e.attrs;
    switch (e.type) {
      case 'DecisionTaskScheduled': {
        this.decision?.stop();
        const scheduledEventId = e.id;
        this.decision = this.start(createActor(this.m.decision, {
          input: { scheduledAt: e.at, startToCloseMs: ms(a.startToCloseTimeout), scheduleToStartMs: ms(a.scheduleToStartTimeout) },
          ...this.options,
        }), (timeoutType: TimeoutType) => this.reports.decisionTimedOut(scheduledEventId, timeoutType));
        break;
      }
      case 'DecisionTaskStarted':
        this.decision?.send(e as HistoryEvent<'DecisionTaskStarted'>);
        break;
      case 'DecisionTaskCompleted':
      case 'DecisionTaskTimedOut':
        deliver(this.decision, e as HistoryEvent<'DecisionTaskCompleted'>);
        this.decision?.stop();
        this.decision = undefined;
        break;
      case 'ActivityTaskScheduled': {
        const scheduledEventId = e.id;
        this.activities.set(scheduledEventId, this.start(createActor(this.m.activity, {
          input: {
            scheduledAt: e.at, scheduleToStartMs: ms(a.scheduleToStartTimeout), scheduleToCloseMs: ms(a.scheduleToCloseTimeout),
            startToCloseMs: ms(a.startToCloseTimeout), heartbeatMs: ms(a.heartbeatTimeout),
          },
          ...this.options,
        }), (timeoutType: TimeoutType, details: string | undefined) => this.reports.activityTimedOut(scheduledEventId, timeoutType, details)));
        break;
      }
      case 'ActivityTaskStarted':
      case 'ActivityTaskCompleted':
      case 'ActivityTaskFailed':
      case 'ActivityTaskTimedOut':
      case 'ActivityTaskCanceled': {
        const actor = this.activities.get(a.scheduledEventId as number);
        deliver(actor, e as HistoryEvent<'ActivityTaskStarted'>);
        if (actor && e.type !== 'ActivityTaskStarted') {
          actor.stop();
          this.activities.delete(a.scheduledEventId as number);
        }
        break;
      }
      case 'TimerStarted': {
        const timerId = a.timerId as string;
        this.timers.set(timerId, this.start(createActor(this.m.timer, {
          input: { startedAt: e.at, startToFireMs: ms(a.startToFireTimeout) ?? 0 },
          ...this.options,
        }), () => this.reports.timerFired(timerId)));
        break;
      }
      case 'TimerFired':
      case 'TimerCanceled': {
        const timer = this.timers.get(a.timerId as string);
        deliver(timer, e as HistoryEvent<'TimerFired'>);
        timer?.stop();
        this.timers.delete(a.timerId as string);
        break;
      }
      default:
        break;
    }
  }

  /** The earliest deadline armed in any actor of the run: when a sleeping run must wake. */
  nextDeadline(): number {
    let next = Infinity;
    const consider = (d: number | null | undefined) => { if (d !== null && d !== undefined && d < next) next = d; };
    const w = this.workflow.getSnapshot();
    if (w.value === 'open') consider(w.context.startToCloseDeadline);
    const d = this.decision?.getSnapshot();
    if (d?.status === 'active') consider(d.value === 'scheduled' ? d.context.scheduleToStartDeadline : d.context.startToCloseDeadline);
    for (const a of this.activities.values()) {
      const s = a.getSnapshot();
      if (s.status !== 'active') continue;
      consider(s.context.scheduleToCloseDeadline);
      if (s.value === 'scheduled') consider(s.context.scheduleToStartDeadline);
      else { consider(s.context.startToCloseDeadline); consider(s.context.heartbeatDeadline); }
    }
    for (const t of this.timers.values()) if (t.getSnapshot().status === 'active') consider(t.getSnapshot().context.fireDeadline);
    return next;
  }

  /** Last heartbeats of started activities that have a heartbeat timeout. */
  heartbeats(): Map<number, HeartbeatMark> {
    const out = new Map<number, HeartbeatMark>();
    for (const [id, a] of this.activities) {
      const s = a.getSnapshot();
      if (s.status === 'active' && s.value === 'started' && s.context.heartbeatMs !== null && s.context.heartbeatDeadline !== null) {
        out.set(id, { at: s.context.heartbeatDeadline - s.context.heartbeatMs, details: s.context.heartbeatDetails });
      }
    }
    return out;
  }

  /**
   * After a rebuild, restores heartbeat clocks: from the marks kept while the run slept, or (after a
   * crash, when they are lost) from `now`, so a worker gets one full heartbeat period to check in.
   */
  restoreHeartbeats(marks: Map<number, HeartbeatMark> | undefined, now: number): void {
    for (const [id, a] of this.activities) {
      const s = a.getSnapshot();
      if (s.status !== 'active' || s.value !== 'started' || s.context.heartbeatMs === null) continue;
      const mark = marks?.get(id);
      a.send({ type: 'Heartbeat', at: mark?.at ?? now, details: mark?.details });
    }
  }

  /** Records a heartbeat in the activity's actor (heartbeats write no history). */
  heartbeat(scheduledEventId: number, at: number, details: string | undefined): void {
    this.activities.get(scheduledEventId)?.send({ type: 'Heartbeat', at, details });
  }

  stopAll(): void {
    this.decision?.stop();
    this.decision = undefined;
    for (const a of this.activities.values()) a.stop();
    for (const t of this.timers.values()) t.stop();
    this.activities.clear();
    this.timers.clear();
    this.workflow.stop();
  }
}

/** The last heartbeat of a started activity (heartbeats write no history, so sleeping runs keep it). */
export interface HeartbeatMark {
  at: number;
  details: string | undefined;
}
