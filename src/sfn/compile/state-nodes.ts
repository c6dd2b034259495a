import type { ChoiceState, State } from '../asl/types.js';
import { choiceTargets } from './choice-state.js';
import { GO_END, GO_FAIL, GO_RETRY, GO_WAIT, goTo } from './graph-context.js';
import { catchTargets, hasRetry } from './retry-catch.js';

/** How a state node names the graph's other states (absolute `#machine.State` targets). */
export interface NodeKit {
  targetOf(stateName: string): string;
  /** The graph's final states. */
  succeeded: string;
  failed: string;
}

// XState config is plain data here; the machine builder gives it its types.
type Config = Record<string, unknown>;
type Transition = Record<string, unknown>;

const go = (to: string) => ({ type: 'go', params: { to } });

/** Possible next states of `def` (Next, catchers, Choice rules and Default), without repeats. */
function nextStates(def: State): string[] {
  const all = [...(def.Next !== undefined ? [def.Next] : []), ...catchTargets(def)];
  if (def.Type === 'Choice') all.push(...choiceTargets(def as ChoiceState));
  return [...new Set(all)];
}

/** The eventless transitions that follow `context.go` once a state's work decided it. */
function routes(kit: NodeKit, def: State, extra: Transition[] = []): Transition[] {
  return [
    ...(hasRetry(def) ? [{ guard: go(GO_RETRY), target: 'retrying' }] : []),
    ...nextStates(def).map((n) => ({ guard: go(goTo(n)), target: kit.targetOf(n), reenter: true })),
    { guard: go(GO_END), target: kit.succeeded },
    { guard: go(GO_FAIL), target: kit.failed },
    ...extra,
  ];
}

const rearm = (self: string, actions?: unknown) => ({ 'sfn.rearm.local': { target: self, reenter: true, ...(actions ? { actions } : {}) } });

/** Waits out a retrier's delay (a timer sub-state, re-armed from `retryAt`), then runs the state again. */
function retrying(def: State): Config {
  return hasRetry(def) ? { retrying: { after: { retryDelay: { target: 'run' } }, on: rearm('retrying') } } : {};
}

/** A task that waits leaves at once when a step of it reached the history limit (see history-limit.ts). */
const limitReached = (kit: NodeKit): Transition => ({ guard: go(GO_FAIL), target: kit.failed });

function taskNode(kit: NodeKit, name: string, def: State): Config {
  const p = { state: name };
  const finishing = {
    'sfn.activity.succeeded': { guard: 'ownTask', target: 'settle', actions: { type: 'taskSucceeded', params: p } },
    'sfn.activity.failed': { guard: 'ownTask', target: 'settle', actions: { type: 'taskFailed', params: p } },
  };
  const timeout = { guard: 'hasTaskTimeout', target: 'settle', actions: { type: 'taskTimedOut', params: { ...p, heartbeat: false } } };
  return {
    initial: 'run',
    states: {
      run: { entry: { type: 'runTask', params: p }, always: routes(kit, def, [{ guard: go(GO_WAIT), target: 'scheduled' }]) },
      scheduled: {
        always: limitReached(kit),
        after: { taskTimeout: timeout },
        on: {
          'sfn.activity.started': { guard: 'ownTask', target: 'started', actions: { type: 'taskStarted', params: p } },
          'sfn.activity.scheduleFailed': { guard: 'ownTask', target: 'settle', actions: { type: 'taskScheduleFailed', params: p } },
          ...finishing,
          ...rearm('scheduled'),
        },
      },
      started: {
        always: limitReached(kit),
        after: {
          taskTimeout: timeout,
          heartbeat: { guard: 'hasHeartbeat', target: 'settle', actions: { type: 'taskTimedOut', params: { ...p, heartbeat: true } } },
        },
        on: {
          'sfn.activity.heartbeat': { guard: 'ownTask', target: 'started', reenter: true, actions: { type: 'taskBeat', params: p } },
          // Re-entered: a callback's heartbeat window opens at TaskSubmitted.
          'sfn.task.submitted': { guard: 'ownTask', target: 'started', reenter: true, actions: { type: 'taskSubmitted', params: p } },
          ...finishing,
          ...rearm('started', { type: 'taskBeat', params: p }),
        },
      },
      settle: { always: routes(kit, def) },
      ...retrying(def),
    },
  };
}

function waitNode(kit: NodeKit, name: string, def: State): Config {
  const p = { state: name };
  return {
    initial: 'run',
    states: {
      run: { entry: { type: 'runWait', params: p }, always: routes(kit, def, [{ guard: go(GO_WAIT), target: 'waiting' }]) },
      waiting: { after: { waitUntil: { target: 'settle', actions: { type: 'waitDone', params: p } } }, on: rearm('waiting') },
      settle: { always: routes(kit, def) },
    },
  };
}

/** Parallel and Map: the children run while the state is `running`; leaving it stops any still running. */
function childrenNode(kit: NodeKit, name: string, def: State, run: 'runParallel' | 'runMap'): Config {
  const p = { state: name };
  return {
    initial: 'run',
    states: {
      run: { entry: { type: run, params: p }, always: routes(kit, def, [{ guard: go(GO_WAIT), target: 'running' }]) },
      running: {
        on: {
          'xstate.done.actor.*': { guard: 'ownKid', actions: { type: 'kidDone', params: p } },
          'sfn.kids.resume': { guard: 'kidsPaused', actions: { type: 'kidsResume', params: p } },
          // After a restore the resume timer is gone: a paused visit resumes at once.
          'sfn.rearm.local': { guard: 'kidsPaused', actions: { type: 'kidsResume', params: p } },
        },
        always: routes(kit, def),
        exit: 'stopKids',
      },
      ...retrying(def),
    },
  };
}

/** One XState state for one ASL state: its entry records `<Type>StateEntered`. */
export function stateNode(kit: NodeKit, name: string, def: State): Config {
  const p = { state: name };
  const enter = { type: 'enterState', params: p };
  switch (def.Type) {
    case 'Task': return { entry: enter, ...taskNode(kit, name, def) };
    case 'Wait': return { entry: enter, ...waitNode(kit, name, def) };
    case 'Parallel': return { entry: enter, ...childrenNode(kit, name, def, 'runParallel') };
    case 'Map': return { entry: enter, ...childrenNode(kit, name, def, 'runMap') };
    case 'Pass': return { entry: [enter, { type: 'runPass', params: p }], always: routes(kit, def) };
    case 'Choice': return { entry: [enter, { type: 'runChoice', params: p }], always: routes(kit, def) };
    case 'Succeed': return { entry: [enter, { type: 'runSucceed', params: p }], always: routes(kit, def) };
    case 'Fail': return { entry: [enter, { type: 'runFail', params: p }], always: routes(kit, def) };
  }
}
