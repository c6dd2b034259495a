import { applyInputPath } from '../asl/data-flow.js';
import { AslError } from '../asl/errors.js';
import { readPath } from '../asl/json-path.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { TaskState } from '../asl/types.js';
import { knownServiceResource } from '../integrations/known.js';
import type { SfnTaskRequest } from './contract.js';
import { GO_WAIT, json } from './graph-context.js';
import { checkedJson } from './payload-limit.js';
import { evalField, integerField, isJsonata } from './query.js';
import { decideFault } from './retry-catch.js';
import { finishWithResult } from './state-flow.js';
import type { Step } from './step.js';
import { beating, CALLBACK_TIMEOUT_SECONDS, regionOf, taskDetails, taskEventType } from './task-events.js';

/** A positive whole number of seconds read from the state input (TimeoutSecondsPath, HeartbeatSecondsPath). */
function secondsAt(input: unknown, path: string): number {
  const v = readPath(input, path);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new AslError('States.Runtime', `The value at ${path} must be a positive integer of seconds, got ${json(v)}`);
  }
  return v;
}

/** JSONata: Arguments (default `$states.input`), TimeoutSeconds and HeartbeatSeconds as numbers or expressions. */
function jsonataTask(s: Step, def: TaskState): { input: unknown; timeoutSeconds?: number; heartbeatSeconds?: number } {
  const input = def.Arguments === undefined ? s.ctx.input : evalField(s, def.Arguments, 'Arguments');
  const seconds = (v: number | string | undefined, field: string) => (v === undefined ? undefined : integerField(s, v, field, 1));
  return { input, timeoutSeconds: seconds(def.TimeoutSeconds, 'TimeoutSeconds'), heartbeatSeconds: seconds(def.HeartbeatSeconds, 'HeartbeatSeconds') };
}

/** The Task's scheduling event: an activity's ActivityScheduled, or a service integration's TaskScheduled (AWS's members, in order). */
function scheduledDetails(s: Step, task: SfnTaskRequest): Record<string, unknown> {
  const seconds = {
    ...(task.timeoutSeconds !== undefined ? { timeoutInSeconds: task.timeoutSeconds } : {}),
    ...(task.heartbeatSeconds !== undefined ? { heartbeatInSeconds: task.heartbeatSeconds } : {}),
  };
  if (!task.service) return { resource: task.resource, input: task.input, inputDetails: { truncated: false }, ...seconds };
  return taskDetails(task, { region: regionOf(s.ctx.co.Execution.Id), parameters: task.input, ...seconds });
}

/**
 * Schedules the task: InputPath → Parameters (with `$$`, and `$$.Task.Token` for a callback), or
 * JSONata Arguments → ActivityScheduled or TaskScheduled with a new task key.
 */
export function runTask(s: Step, def: TaskState): void {
  const service = knownServiceResource(def.Resource);
  const key = `${s.env.selfId}#${s.nextSeq()}`;
  if (service?.pattern === 'waitForTaskToken') s.token = s.env.taskToken(key);
  const r = s.attempt(() => {
    if (isJsonata(def)) return jsonataTask(s, def);
    const co = s.co();
    const effective = applyInputPath(s.ctx.input, def.InputPath, co);
    const input = def.Parameters !== undefined ? evaluateTemplate(def.Parameters, effective, co) : effective;
    const timeoutSeconds = (def.TimeoutSeconds as number | undefined) ?? (def.TimeoutSecondsPath ? secondsAt(effective, def.TimeoutSecondsPath) : undefined);
    const heartbeatSeconds = (def.HeartbeatSeconds as number | undefined) ?? (def.HeartbeatSecondsPath ? secondsAt(effective, def.HeartbeatSecondsPath) : undefined);
    return { input, timeoutSeconds, heartbeatSeconds };
  });
  s.token = undefined;
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return;
  }
  const { input, timeoutSeconds, heartbeatSeconds } = r.value;
  // AWS: the input of a state after Parameters may not pass the payload quota either.
  const j = checkedJson(input, s.ctx.state!.Name);
  if (!j.ok) {
    decideFault(s, def, j.fault);
    return;
  }
  const task: SfnTaskRequest = { key, resource: def.Resource, input: j.text, state: s.ctx.state!.Name };
  if (service) task.service = service;
  if (timeoutSeconds !== undefined) task.timeoutSeconds = timeoutSeconds;
  if (heartbeatSeconds !== undefined) task.heartbeatSeconds = heartbeatSeconds;
  // A callback waits AWS's default TimeoutSeconds when it has none of its own.
  const waitSeconds = timeoutSeconds ?? (service?.pattern === 'waitForTaskToken' ? CALLBACK_TIMEOUT_SECONDS : undefined);
  const deadline = waitSeconds === undefined ? null : s.now() + waitSeconds * 1000;
  if (deadline !== null && service) task.deadline = deadline;
  s.record(taskEventType(task, 'scheduled'), scheduledDetails(s, task), { task });
  s.ctx.task = {
    key, resource: def.Resource, deadline,
    heartbeatMs: heartbeatSeconds === undefined ? null : heartbeatSeconds * 1000,
    hbDeadline: null,
    started: false,
    ...(service ? { service } : {}),
  };
  s.ctx.go = GO_WAIT;
}

export function taskStarted(s: Step, workerName: string | undefined): void {
  const t = s.ctx.task!;
  s.record(taskEventType(t, 'started'), taskDetails(t, workerName === undefined || t.service ? {} : { workerName }), { taskKey: t.key });
  // A service task's heartbeat window opens when it is submitted (a callback), not when it starts.
  s.ctx.task = { ...t, started: true, hbDeadline: t.heartbeatMs === null || t.service ? null : s.now() + t.heartbeatMs };
}

/** A callback or `.sync` request was accepted: TaskSubmitted; a callback's heartbeat window opens now. */
export function taskSubmitted(s: Step, output: unknown): void {
  const t = s.ctx.task!;
  if (t.submitted) return;
  s.record('TaskSubmitted', taskDetails(t, { output: json(output), outputDetails: { truncated: false } }), { taskKey: t.key });
  const next = { ...t, submitted: true };
  s.ctx.task = { ...next, hbDeadline: beating(next) && t.heartbeatMs !== null ? s.now() + t.heartbeatMs : null };
}

/**
 * A heartbeat (or a rearm after a crash) opens a new heartbeat window from now. Woken from sleep,
 * the window is the one the execution had when it went to sleep (`hb`, by task key).
 */
export function taskBeat(s: Step, hb?: Record<string, number>): void {
  const t = s.ctx.task!;
  if (!beating(t) || t.heartbeatMs === null) return;
  const kept = hb?.[t.key];
  if (hb && kept === undefined) return;
  s.ctx.task = { ...t, hbDeadline: kept ?? s.now() + t.heartbeatMs };
}

export function taskSucceeded(s: Step, def: TaskState, output: unknown): void {
  const t = s.ctx.task!;
  s.record(taskEventType(t, 'succeeded'), taskDetails(t, { output: json(output), outputDetails: { truncated: false } }), { taskKey: t.key });
  s.ctx.task = null;
  finishWithResult(s, def, output);
}

export function taskFailed(s: Step, def: TaskState, error: string | undefined, cause: string | undefined): void {
  const t = s.ctx.task!;
  const details: Record<string, unknown> = taskDetails(t);
  if (error !== undefined) details.error = error;
  if (cause !== undefined) details.cause = cause;
  s.record(taskEventType(t, 'failed'), details, { taskKey: t.key });
  s.ctx.task = null;
  decideFault(s, def, { error: error ?? 'States.TaskFailed', cause: cause ?? '' });
}

/**
 * The activity does not exist (any more), or no integration serves the resource: AWS records no ActivityScheduled and fails the execution at
 * once with States.Runtime (no Retry or Catch applies). The host withdrew the ActivityScheduled.
 */
export function taskScheduleFailed(s: Step, error: string, cause: string): void {
  s.ctx.task = null;
  s.fail({ error, cause });
}

/**
 * TimeoutSeconds or HeartbeatSeconds ran out: AWS records States.Timeout for both, and no cause
 * (a Retry or Catch may still name a missed heartbeat States.HeartbeatTimeout).
 */
export function taskTimedOut(s: Step, def: TaskState, heartbeat: boolean): void {
  const t = s.ctx.task!;
  const error = 'States.Timeout';
  s.record(taskEventType(t, 'timedOut'), taskDetails(t, { error }), { taskKey: t.key });
  s.ctx.task = null;
  decideFault(s, def, { error, cause: '', ...(heartbeat ? { heartbeat: true as const } : {}) });
}
