import { enqueueActions, setup, type AnyActorRef, type AnyStateMachine } from 'xstate';
import { remaining, type MachineClock } from '../../../machines/swf/history-event.js';
import type {
  ChoiceState, FailState, MapState, ParallelState, PassState, State, StateGraph, SucceedState, TaskState, WaitState,
} from '../asl/types.js';
import { runChoice } from './choice-state.js';
import type { SfnExecutionOutput, SfnHooks, SfnLinkOp, SfnRecord } from './contract.js';
import { initialContext, json, type GraphContext, type GraphEvent, type GraphInput } from './graph-context.js';
import { graphNames, type GraphNames } from './graph-names.js';
import { countRecords, type UnrecordedCounts } from './history-limit.js';
import { kidOf, liveKids, upgradeKids } from './kids.js';
import { INLINE_MAP_CONCURRENCY, mapKidDone, mapResume, runMap } from './map-state.js';
import { mapRunFailed, mapRunSucceeded, runDistributedMap } from './distributed-map.js';
import { parallelKidDone, parallelResume, runParallel } from './parallel-state.js';
import { runFail, runPass, runSucceed } from './pass-succeed-fail.js';
import { beginNode, keptKids, redrivePointOf, resumeAt } from './redrive-start.js';
import { stateNode } from './state-nodes.js';
import { enterState } from './state-flow.js';
import { Step, type StepEnv } from './step.js';
import { runTask, taskBeat, taskFailed, taskScheduleFailed, taskStarted, taskSubmitted, taskSucceeded, taskTimedOut } from './task-state.js';
import { runWait, waitDone } from './wait-state.js';

export interface GraphMachineOptions {
  clock: MachineClock;
  hooks: SfnHooks;
  /** The execution's own graph: records Execution* events, has the execution timeout and handles sfn.stop. */
  root: boolean;
  /** XState machine id (no `.`). */
  id: string;
  /** Maps the actor input to the graph input (the root's input is SfnExecutionInput). */
  toInput(input: unknown): GraphInput;
  /** The execution's history limit (the cause of the States.Runtime failure names it). */
  limit: number;
  /** Shared by every graph of one compiled machine. */
  unrecorded: UnrecordedCounts;
}

type TaskEvent = Extract<GraphEvent, { key: string }>;
type DoneEvent = Extract<GraphEvent, { actorId: string }>;

/** The actor id a task key belongs to (`<actorId>#<n>`). */
function ownerOf(key: string): string {
  return key.slice(0, key.lastIndexOf('#'));
}

/** The running child that `key`'s actor is, or descends from. */
function childFor(ctx: GraphContext, key: string): string | undefined {
  return kidOf(ctx, ownerOf(key));
}

function outcomeRecord(o: SfnExecutionOutput): SfnRecord {
  if (o.status === 'SUCCEEDED') return { type: 'ExecutionSucceeded', details: { output: json(o.output), outputDetails: { truncated: false } } };
  const details: Record<string, unknown> = {};
  if (o.error) details.error = o.error;
  if (o.cause) details.cause = o.cause;
  // AWS links ExecutionAborted to no event (recorded: WaitStateEntered #2, then ExecutionAborted #3 with previousEventId 0).
  if (o.status === 'ABORTED') return { type: 'ExecutionAborted', details, link: { none: true } };
  return { type: o.status === 'FAILED' ? 'ExecutionFailed' : 'ExecutionTimedOut', details };
}

/**
 * Compiles one StateGraph (the definition, a Parallel branch or a Map iterator) into a machine: one
 * XState state per ASL state plus the final states, children registered by string `src` so they
 * persist and restore with the root's snapshot.
 */
export function createGraphMachine(graph: StateGraph, o: GraphMachineOptions, compileChild: (g: StateGraph, id: string) => AnyStateMachine): AnyStateMachine {
  const names: GraphNames = graphNames(graph, o.id);
  // Child machines are compiled when they run: XState looks a spawned `src` up in this object when
  // it spawns or restores the child, and a getter compiles it then. Compiled up front, a Parallel of
  // 10,000 branches held the node for 4 s in its first StartExecution and kept 270 MB of machines
  // for as long as the definition was cached. A Map's one iterator is kept (every iteration runs
  // it); a Parallel branch is compiled each time it starts (~0.5 ms) and dropped with its actor.
  const actors: Record<string, AnyStateMachine> = {};
  for (const [name, def] of Object.entries(graph.States)) {
    if (def.Type === 'Map') {
      const src = names.srcOf(name, 0);
      let compiled: AnyStateMachine | undefined;
      Object.defineProperty(actors, src, { enumerable: true, get: () => (compiled ??= compileChild((def as MapState).ItemProcessor, `${o.id}/${src}`)) });
    } else if (def.Type === 'Parallel') {
      (def as ParallelState).Branches.forEach((b, i) => {
        const src = names.srcOf(name, i);
        Object.defineProperty(actors, src, { enumerable: true, get: () => compileChild(b, `${o.id}/${src}`) });
      });
    }
  }
  const stateOf = (name: string): State => graph.States[name];
  const env = (self: AnyActorRef): StepEnv => ({
    clock: o.clock, selfId: self.id, root: o.root, graph, srcOf: names.srcOf, tagOf: names.tagOf,
    executionInput: () => o.hooks.executionInput(self.system),
    taskToken: (key) => {
      if (!o.hooks.taskToken) throw new Error('this host hands out no task tokens');
      return o.hooks.taskToken(self.system, key);
    },
  });

  /** A named action running one step of the ASL logic on a draft, then applying what it produced, in order. */
  const step = (fn: (s: Step, def: State, event: GraphEvent, params: { state: string; heartbeat?: boolean }) => void) =>
    enqueueActions(({ context, event, self, enqueue }, params: { state: string; heartbeat?: boolean }) => {
      const before = context as GraphContext;
      // Past the history limit the graph only moves to its failed state.
      if (before.limitHit) return;
      const system = self.system as object;
      // Events the execution has so far, recorded or still to be: this step's first record is the next.
      const used = o.hooks.used(system) + o.unrecorded.of(system);
      const draft = new Step(before, env(self), used + 1);
      fn(draft, stateOf(params.state), event as GraphEvent, params);
      const s = countRecords(draft, before, o.limit, used);
      o.unrecorded.add(system, s.records.length);
      enqueue.assign(() => s.ctx);
      for (const l of s.links) enqueue({ type: 'link', params: l });
      for (const r of s.records) enqueue({ type: 'record', params: r });
      // Stopping an id that is not a child (any more) is a no-op.
      for (const id of s.stops) {
        enqueue.stopChild(id);
        enqueue({ type: 'ended', params: { id } });
      }
      for (const k of s.spawns) enqueue.spawnChild(k.src as never, { id: k.id, input: k.input as never });
      for (const m of s.sends) enqueue.sendTo(m.to as never, m.event as never);
      // A yield to the event loop: the event comes back on a 0 ms timer (re-sent by a rearm after a restore).
      for (const e of s.later) enqueue.raise(e as never, { delay: 0 });
    });

  /** Sets the graph's outcome on a final state (the root also records its Execution* event). */
  const end = (outcome: (ctx: GraphContext, event: GraphEvent) => SfnExecutionOutput) =>
    enqueueActions(({ context, event, self, enqueue }) => {
      const out = outcome(context as GraphContext, event as GraphEvent);
      enqueue.assign({ outcome: out, go: null } as never);
      if (o.root) {
        o.unrecorded.add(self.system as object, 1);
        enqueue({ type: 'record', params: outcomeRecord(out) });
      }
    });

  const config: Record<string, unknown> = {
    id: o.id,
    context: ({ input }: { input: unknown }) => {
      const gi = o.toInput(input);
      return resumeAt(initialContext(gi), gi.redrive);
    },
    // A child waits for its parent's sfn.go: children spawned while the parent initialises start
    // before the parent's own actions run, and their events must come after the parent's.
    initial: o.root ? names.begin : names.waitKey,
    ...(o.root ? { entry: 'armExecTimeout' } : {}),
    on: {
      'sfn.activity.started': { guard: 'forChild', actions: 'forward' },
      'sfn.activity.heartbeat': { guard: 'forChild', actions: 'forward' },
      'sfn.activity.succeeded': { guard: 'forChild', actions: 'forward' },
      'sfn.activity.failed': { guard: 'forChild', actions: 'forward' },
      'sfn.activity.scheduleFailed': { guard: 'forChild', actions: 'forward' },
      'sfn.task.submitted': { guard: 'forChild', actions: 'forward' },
      'sfn.rearm': { actions: ['upgradeKids', 'armExecTimeout', 'forwardRearm', 'rearmLocal'] },
      ...(o.root ? {
        'sfn.stop': { target: `.${names.aborted}`, actions: 'abort' },
        'sfn.execTimeout': { target: `.${names.timedOut}`, actions: 'execTimedOut' },
      } : {}),
    },
    states: {
      // A child waits for sfn.go, then begins like the root: at StartAt, or where a redrive starts it again.
      ...(o.root ? {} : { [names.waitKey]: { on: { 'sfn.go': names.targetOf(names.begin) } } }),
      [names.begin]: beginNode(names, graph),
      ...Object.fromEntries(Object.entries(graph.States).map(([name, def]) => [name, stateNode(names, name, def)])),
      [names.succeededKey]: { type: 'final', entry: 'graphSucceeded' },
      [names.failedKey]: { type: 'final', entry: 'graphFailed' },
      ...(o.root ? { [names.timedOut]: { type: 'final' }, [names.aborted]: { type: 'final' } } : {}),
    },
    output: ({ context }: { context: GraphContext }) => context.outcome,
  };

  return setup({
    types: {} as { context: GraphContext; events: GraphEvent; input: unknown; output: SfnExecutionOutput },
    actors: actors as Record<string, AnyStateMachine>,
    // enqueueActions built outside setup() carry generic types; the config above names them.
    actions: {
      record: ({ self }: { self: AnyActorRef }, params: SfnRecord) => {
        o.unrecorded.recorded(self.system as object);
        o.hooks.record(self.system, self.id, params);
      },
      ended: ({ self }: { self: AnyActorRef }, params: { id: string }) => o.hooks.ended?.(self.system, params.id),
      link: ({ self }: { self: AnyActorRef }, params: SfnLinkOp) => o.hooks.link?.(self.system, params),
      enterState: step((s, def, _e, p) => {
        enterState(s, p.state, def);
        // Children kept from an earlier visit belong to that visit only.
        delete s.ctx.kept;
      }),
      redriveTaken: enqueueActions(({ enqueue }) => enqueue.assign({ redriveTo: undefined } as never)),
      runPass: step((s, def) => runPass(s, def as PassState)),
      runSucceed: step((s, def) => runSucceed(s, def as SucceedState)),
      runFail: step((s, def) => runFail(s, def as FailState)),
      runChoice: step((s, def) => runChoice(s, def as ChoiceState)),
      runWait: step((s, def) => runWait(s, def as WaitState)),
      waitDone: step((s, def) => waitDone(s, def as WaitState)),
      runTask: step((s, def) => runTask(s, def as TaskState)),
      taskStarted: step((s, _def, e) => taskStarted(s, (e as Extract<GraphEvent, { type: 'sfn.activity.started' }>).workerName)),
      taskSubmitted: step((s, _def, e) => taskSubmitted(s, (e as Extract<GraphEvent, { type: 'sfn.task.submitted' }>).output)),
      taskBeat: step((s, _def, e) => taskBeat(s, e.type === 'sfn.rearm.local' ? e.hb : undefined)),
      taskSucceeded: step((s, def, e) => taskSucceeded(s, def as TaskState, (e as Extract<GraphEvent, { type: 'sfn.activity.succeeded' }>).output)),
      taskFailed: step((s, def, e) => {
        const f = e as Extract<GraphEvent, { type: 'sfn.activity.failed' }>;
        taskFailed(s, def as TaskState, f.error, f.cause);
      }),
      taskScheduleFailed: step((s, _def, e) => {
        const f = e as Extract<GraphEvent, { type: 'sfn.activity.scheduleFailed' }>;
        taskScheduleFailed(s, f.error, f.cause);
      }),
      taskTimedOut: step((s, def, _e, p) => taskTimedOut(s, def as TaskState, p.heartbeat === true)),
      runParallel: step((s, def, _e, p) => runParallel(s, p.state, def as ParallelState)),
      runMap: step((s, def, _e, p) => runMap(s, p.state, def as MapState)),
      runDistributedMap: step((s, def, _e, p) => runDistributedMap(s, p.state, def as MapState)),
      mapRunSucceeded: step((s, def, e, p) => mapRunSucceeded(s, p.state, def as MapState, (e as Extract<GraphEvent, { type: 'sfn.activity.succeeded' }>).output)),
      mapRunFailed: step((s, def, e) => {
        const f = e as Extract<GraphEvent, { type: 'sfn.activity.failed' }>;
        mapRunFailed(s, def as MapState, f.error, f.cause);
      }),
      kidDone: step((s, def, e, p) => {
        const d = e as DoneEvent;
        const out = d.output as SfnExecutionOutput;
        if (def.Type === 'Parallel') parallelKidDone(s, p.state, def as ParallelState, d.actorId, out);
        else mapKidDone(s, p.state, def as MapState, d.actorId, out);
      }),
      kidsResume: step((s, def, _e, p) => {
        if (def.Type === 'Parallel') parallelResume(s, p.state);
        else mapResume(s, p.state, def as MapState);
      }),
      stopKids: enqueueActions(({ context, enqueue }) => {
        for (const id of liveKids(context as GraphContext)) {
          enqueue.stopChild(id);
          enqueue({ type: 'ended', params: { id } } as never);
        }
        // What succeeded of an unfinished visit stays in context: a redrive keeps it (see redrive-start.ts).
        const kept = keptKids(context as GraphContext);
        enqueue.assign({ kids: null, ...(kept ? { kept } : {}) } as never);
      }),
      upgradeKids: enqueueActions(({ context, self, enqueue }) => {
        const kids = (context as GraphContext).kids;
        if (kids && !('live' in kids)) enqueue.assign({ kids: upgradeKids(kids, self.getSnapshot().children, INLINE_MAP_CONCURRENCY) } as never);
      }),
      forward: enqueueActions(({ context, event, enqueue }) => {
        const to = childFor(context as GraphContext, (event as TaskEvent).key);
        if (to !== undefined) enqueue.sendTo(to as never, event as never);
      }),
      forwardRearm: enqueueActions(({ self, event, enqueue }) => {
        const hb = (event as Extract<GraphEvent, { type: 'sfn.rearm' }>).hb;
        for (const id of Object.keys(self.getSnapshot().children)) enqueue.sendTo(id as never, (hb ? { type: 'sfn.rearm', hb } : { type: 'sfn.rearm' }) as never);
      }),
      rearmLocal: enqueueActions(({ event, enqueue }) => {
        const hb = (event as Extract<GraphEvent, { type: 'sfn.rearm' }>).hb;
        enqueue.raise((hb ? { type: 'sfn.rearm.local', hb } : { type: 'sfn.rearm.local' }) as never);
      }),
      armExecTimeout: enqueueActions(({ context, enqueue }) => {
        const deadline = (context as GraphContext).execDeadline;
        if (!o.root || deadline === null) return;
        enqueue.cancel('execTimeout');
        enqueue.raise({ type: 'sfn.execTimeout' }, { id: 'execTimeout', delay: remaining(o.clock, deadline) });
      }),
      graphSucceeded: end((ctx) => ({ status: 'SUCCEEDED', output: ctx.data })),
      // A Fail state without Error/Cause leaves them out (AWS has neither member, not empty strings).
      graphFailed: end((ctx) => {
        // A failed branch or iteration hands its parent where a redrive starts it again.
        const redrive = o.root ? undefined : redrivePointOf(ctx);
        return {
          status: 'FAILED', ...(ctx.fault?.error ? { error: ctx.fault.error } : {}), ...(ctx.fault?.cause ? { cause: ctx.fault.cause } : {}),
          ...(redrive ? { redrive } : {}), ...(!o.root && ctx.fault?.heartbeat ? { heartbeat: true as const } : {}),
        };
      }),
      abort: end((_ctx, e) => {
        const s = e as Extract<GraphEvent, { type: 'sfn.stop' }>;
        return { status: 'ABORTED', ...(s.error !== undefined ? { error: s.error } : {}), ...(s.cause !== undefined ? { cause: s.cause } : {}) };
      }),
      execTimedOut: end(() => ({ status: 'TIMED_OUT', error: 'States.Timeout', cause: 'The execution ran longer than the state machine\'s TimeoutSeconds' })),
    } as never,
    guards: {
      go: ({ context }, params: { to: string }) => context.go === params.to,
      redriveTo: ({ context }, params: { to: string }) => context.redriveTo === params.to,
      ownTask: ({ context, event }) => context.task !== null && context.task.key === (event as TaskEvent).key,
      ownKid: ({ context, event }) => context.kids !== null && Object.hasOwn(context.kids.live, (event as DoneEvent).actorId),
      kidsPaused: ({ context }) => context.kids?.paused === true,
      forChild: ({ context, event }) => childFor(context, (event as TaskEvent).key) !== undefined,
      hasTaskTimeout: ({ context }) => context.task?.deadline != null,
      hasHeartbeat: ({ context }) => context.task?.hbDeadline != null,
    },
    delays: {
      taskTimeout: ({ context }) => remaining(o.clock, context.task?.deadline ?? null),
      heartbeat: ({ context }) => remaining(o.clock, context.task?.hbDeadline ?? null),
      waitUntil: ({ context }) => remaining(o.clock, context.waitUntil),
      retryDelay: ({ context }) => remaining(o.clock, context.retryAt),
    },
  }).createMachine(config as never) as unknown as AnyStateMachine;
}
