import { pack, unpack } from 'msgpackr';
import { createActor, SimulatedClock, type AnyActor, type AnyStateMachine } from 'xstate';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnExecutionInput, SfnExecutionOutput, SfnHooks, SfnInputEvent, SfnRecord } from '../../src/sfn/compile/contract.js';

/** 2024-01-01T00:00:00Z: every simulated execution starts here. */
export const SFN_T0 = Date.UTC(2024, 0, 1);

/** How the scripted worker answers one ActivityScheduled (in scheduling order). */
export type Answer =
  /** Start, wait `after` ms, succeed with `output`. */
  | { output: unknown; after?: number; worker?: string }
  /** Start, wait `after` ms, fail. */
  | { error?: string; cause?: string; after?: number }
  /** Never start nor answer (TimeoutSeconds fires). */
  | { silent: true }
  /** Start, then never heartbeat nor answer (HeartbeatSeconds fires). */
  | { startSilent: true }
  /** Start, heartbeat `beats` times `every` ms apart, then succeed. */
  | { beats: number; every: number; output: unknown };

export interface SfnCase {
  name: string;
  definition: unknown;
  input?: unknown;
  worker?: Answer[];
  /** Send sfn.stop this many ms after the start. */
  stopAfter?: number;
  expect: SfnExecutionOutput;
  /** When set, the exact recorded event types (all actors, in order). */
  events?: string[];
  /** Extra assertions on the finished run. */
  check?: (run: SfnRun) => void;
  /** Compile with this history limit (default: the compiler's, 25,000). */
  historyLimit?: number;
}

export interface RecordedEvent {
  actorId: string;
  at: number;
  record: SfnRecord;
}

export interface SfnRun {
  output: SfnExecutionOutput;
  events: RecordedEvent[];
  types: string[];
  /** Clock time at which each ActivityScheduled was recorded. */
  scheduledAt: number[];
  restores: number;
}

/**
 * Hooks as a host supplies them: every record goes to `push`, `used` counts them (plus the
 * ExecutionStarted a host records itself), `$$.Execution.Input` is `input`.
 */
export function testHooks(push: (actorId: string, r: SfnRecord) => void, input: unknown): SfnHooks {
  let used = 1;
  return {
    record: (_system, actorId, r) => { used += 1; push(actorId, r); },
    used: () => used,
    executionInput: () => input,
    taskToken: (_system, key) => `token:${key}`,
  };
}

/** The execution input the driver starts every run with. */
export function executionInput(input: unknown): SfnExecutionInput {
  return {
    executionArn: 'arn:aws:states:us-east-1:123456789012:execution:sm:exec-1',
    executionName: 'exec-1',
    stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm',
    stateMachineName: 'sm',
    roleArn: 'arn:aws:iam::123456789012:role/r',
    input,
    startTime: SFN_T0,
  };
}

const HORIZON = 400 * 24 * 3600 * 1000;

/** The next time a live timer of `clock` comes due (timers guarded out with huge delays are ignored). */
function nextDue(clock: SimulatedClock): number | null {
  let best: number | null = null;
  const timeouts = (clock as unknown as { timeouts: Map<number, { start: number; timeout: number }> }).timeouts;
  for (const t of timeouts.values()) {
    const due = t.start + t.timeout;
    if (t.timeout < HORIZON && (best === null || due < best)) best = due;
  }
  return best;
}

/**
 * Runs one case on a simulated clock, with a scripted worker. In `crash` mode the actor is persisted
 * (JSON and msgpack round trip), stopped and restored (id 'root', then sfn.rearm) after every event
 * the driver sends and every clock advance.
 */
export function runCase(c: SfnCase, opts: { crash?: boolean; machine?: AnyStateMachine; maxSteps?: number } = {}): SfnRun {
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const events: RecordedEvent[] = [];
  const hooks = testHooks((actorId, record) => { events.push({ actorId, at: clock.now(), record }); }, c.input ?? {});
  const machine = opts.machine ?? compileStateMachine(parseDefinition(JSON.stringify(c.definition)), {
    clock, hooks, ...(c.historyLimit !== undefined ? { historyLimit: c.historyLimit } : {}),
  }).machine;
  const input = executionInput(c.input ?? {});
  const errors: unknown[] = [];
  const start = (snapshot?: unknown): AnyActor => {
    const a = createActor(machine, { id: 'root', clock, input, ...(snapshot ? { snapshot: snapshot as never } : {}) });
    a.subscribe({ error: (e) => errors.push(e) });
    return a.start();
  };
  let actor = start();
  let restores = 0;
  const crash = () => {
    if (!opts.crash || actor.getSnapshot().status !== 'active') return;
    const persisted = unpack(pack(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))));
    actor.stop();
    actor = start(persisted);
    restores += 1;
    actor.send({ type: 'sfn.rearm' } satisfies SfnInputEvent);
  };
  const send = (e: SfnInputEvent) => {
    actor.send(e);
    crash();
  };
  const done = () => actor.getSnapshot().status !== 'active';
  /** Moves the clock to `t` through every timer due on the way, so each fires at its own time. */
  const advanceTo = (t: number) => {
    for (let due = nextDue(clock); due !== null && due < t && !done(); due = nextDue(clock)) {
      clock.set(due);
      crash();
    }
    if (done()) return;
    clock.set(t);
    crash();
  };

  crash();
  const answers = [...(c.worker ?? [])];
  let handled = 0;
  const stopAt = c.stopAfter === undefined ? null : SFN_T0 + c.stopAfter;
  let stopped = false;
  for (let steps = 0; !done(); steps += 1) {
    if (errors.length) throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
    if (steps > (opts.maxSteps ?? 2000)) throw new Error(`${c.name}: no end after ${steps} steps`);
    const scheduled = events.filter((e) => e.record.type === 'ActivityScheduled');
    if (handled < scheduled.length) {
      const key = scheduled[handled].record.task!.key;
      handled += 1;
      const a = answers.shift();
      if (a === undefined || 'silent' in a) continue;
      send({ type: 'sfn.activity.started', key, ...('worker' in a && a.worker ? { workerName: a.worker } : { workerName: 'w1' }) });
      if ('startSilent' in a) continue;
      if ('beats' in a) {
        for (let i = 0; i < a.beats && !done(); i += 1) {
          advanceTo(clock.now() + a.every);
          send({ type: 'sfn.activity.heartbeat', key });
        }
      } else if (a.after) advanceTo(clock.now() + a.after);
      if (done()) break;
      if ('output' in a) send({ type: 'sfn.activity.succeeded', key, output: a.output });
      else send({ type: 'sfn.activity.failed', key, ...(a.error !== undefined ? { error: a.error } : {}), ...(a.cause !== undefined ? { cause: a.cause } : {}) });
      continue;
    }
    const due = nextDue(clock);
    if (stopAt !== null && !stopped && (due === null || stopAt <= due)) {
      stopped = true;
      if (stopAt > clock.now()) advanceTo(stopAt);
      if (!done()) send({ type: 'sfn.stop', error: 'Stopped', cause: 'by the test' });
      continue;
    }
    if (due === null) throw new Error(`${c.name}: stuck in ${JSON.stringify(actor.getSnapshot().value)}`);
    advanceTo(due);
  }
  if (errors.length) throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
  const output = actor.getSnapshot().output as SfnExecutionOutput;
  actor.stop();
  return {
    output, events, types: events.map((e) => e.record.type), restores,
    scheduledAt: events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.at),
  };
}
