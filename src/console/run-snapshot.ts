import type { AnyActorRef } from 'xstate';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import type { ExecutionState } from '../../machines/swf/execution-state.js';
import type { EngineClock } from '../engine/clock.js';
import { createMachineSet, ExecutionActors, type MachineSet } from '../swf/kind/execution-actors.js';
import { armedTimeouts, machineGraph, statePath, type ArmedTimeout, type MachineGraph } from './machine-graph.js';

/** The four machines of a run as the console draws them, built once from their definitions. */
export interface MachineGraphs {
  workflow: MachineGraph;
  decision: MachineGraph;
  activity: MachineGraph;
  timer: MachineGraph;
}

export function machineGraphs(m: MachineSet): MachineGraphs {
  return { workflow: machineGraph(m.workflow), decision: machineGraph(m.decision), activity: machineGraph(m.activity), timer: machineGraph(m.timer) };
}

/** One live actor: which machine, its current state and the timeouts armed in that state. */
export interface ActorView {
  /** Key into MachineGraphs. */
  machine: keyof MachineGraphs;
  /** Stable id within the run: `workflow`, `decision-5`, `activity-5`, `timer-<timerId>`. */
  id: string;
  label: string;
  state: string;
  /** XState snapshot status: active, done (final state), stopped, error. */
  status: string;
  armed: ArmedTimeout[];
  details: Record<string, unknown>;
}

/** Where the actor states come from: the run's live actors, or a replay of its history. */
export type ActorSource = 'live' | 'asleep' | 'closed' | 'remote';

export interface RunInfo {
  domain: string;
  workflowId: string;
  runId: string;
  workflowType: unknown;
  executionStatus: 'OPEN' | 'CLOSED';
  closeStatus: string | null;
  startedAt: number;
  closedAt: number | null;
  cancelRequested: boolean;
  tagList: unknown;
  taskList: unknown;
  childPolicy: unknown;
  executionStartToCloseTimeout: unknown;
  taskStartToCloseTimeout: unknown;
  input: unknown;
  lastEventId: number;
}

export interface RunSnapshot {
  source: ActorSource;
  info: RunInfo;
  actors: ActorView[];
}

export function runInfo(key: { domain: string; workflowId: string; runId: string }, s: ExecutionState): RunInfo {
  return {
    domain: key.domain, workflowId: key.workflowId, runId: key.runId,
    workflowType: s.started.workflowType,
    executionStatus: s.closeStatus ? 'CLOSED' : 'OPEN',
    closeStatus: s.closeStatus,
    startedAt: s.startedAt,
    closedAt: s.closedAt,
    cancelRequested: s.cancelRequested,
    tagList: s.started.tagList ?? [],
    taskList: s.started.taskList,
    childPolicy: s.started.childPolicy,
    executionStartToCloseTimeout: s.started.executionStartToCloseTimeout,
    taskStartToCloseTimeout: s.started.taskStartToCloseTimeout,
    input: s.started.input,
    lastEventId: s.lastEventId,
  };
}

function view(actor: AnyActorRef, graph: MachineGraph, machine: keyof MachineGraphs, id: string, label: string,
  details: Record<string, unknown>): ActorView {
  const snap = actor.getSnapshot() as { value: unknown; status: string; context: Record<string, unknown> };
  const state = statePath(snap.value);
  return {
    machine, id, label, state, status: snap.status,
    // A stopped or finished actor has nothing armed.
    armed: snap.status === 'active' ? armedTimeouts(graph, state, snap.context) : [],
    details,
  };
}

/** The views of a run's actors: the execution, the open decision task, each open activity and timer. */
export function actorViews(actors: ExecutionActors, events: readonly HistoryEvent[], g: MachineGraphs): ActorView[] {
  const out: ActorView[] = [view(actors.workflow, g.workflow, 'workflow', 'workflow', 'workflow execution', {})];
  const scheduled = (id: number) => events[id - 1];
  const state = actors.workflow.getSnapshot().context.execution;
  if (actors.decision && state.decision) {
    const id = state.decision.scheduledEventId;
    out.push(view(actors.decision, g.decision, 'decision', `decision-${id}`, `decision task #${id}`, {
      scheduledEventId: id, startedEventId: state.decision.startedEventId,
      taskList: (scheduled(id)?.attrs.taskList as { name?: string } | undefined)?.name,
    }));
  }
  for (const [id, actor] of [...actors.activities].sort((a, b) => a[0] - b[0])) {
    const a = scheduled(id)?.attrs ?? {};
    const type = a.activityType as { name?: string; version?: string } | undefined;
    const ctx = actor.getSnapshot().context;
    out.push(view(actor, g.activity, 'activity', `activity-${id}`, `activity ${type?.name ?? '?'} (${String(a.activityId ?? id)})`, {
      scheduledEventId: id, activityId: a.activityId, activityType: type, cancelRequested: ctx.cancelRequested,
      heartbeatDetails: ctx.heartbeatDetails,
    }));
  }
  for (const [timerId, actor] of actors.timers) {
    out.push(view(actor, g.timer, 'timer', `timer-${timerId}`, `timer ${timerId}`, { timerId }));
  }
  return out;
}

/**
 * The actor states of a run that is not live here (asleep, closed, or owned by another node):
 * its history replayed into fresh actors on a clock that never fires, so nothing is reported
 * and nothing needs stopping; deadlines come out exactly as the live actors would hold them.
 */
export class Replayer {
  private readonly machines: MachineSet;

  constructor(clock: { now(): number }) {
    const frozen: EngineClock = { now: () => clock.now(), setTimeout: () => 0, clearTimeout: () => undefined };
    this.machines = createMachineSet(frozen);
  }

  replay(events: readonly HistoryEvent[]): ExecutionActors {
    const noop = () => undefined;
    const actors = new ExecutionActors(this.machines, {
      workflowTimedOut: noop, decisionTimedOut: noop, activityTimedOut: noop, timerFired: noop, actorError: noop,
    }, events[0]!);
    actors.apply(events);
    return actors;
  }
}
