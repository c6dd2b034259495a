import { applyInputPath, applyOutputPath } from '../asl/data-flow.js';
import { AslError, StateRuntimeError } from '../asl/errors.js';
import { PathNotFoundError, readPath } from '../asl/json-path.js';
import { parseTimestamp } from '../asl/timestamp.js';
import type { WaitState } from '../asl/types.js';
import { GO_WAIT } from './graph-context.js';
import { integerField, isJsonata, stringField } from './query.js';
import { exitState, finishJsonata } from './state-flow.js';
import type { Step } from './step.js';
import { evaluateAssign } from './variables.js';

/** The longest wait AWS runs: 2^31-1 seconds (about 24,855 days; a day more fails). */
export const MAX_WAIT_SECONDS = 2 ** 31 - 1;

/** AWS's cause for a wait past MAX_WAIT_SECONDS. */
export const WAIT_TOO_LONG = 'Wait state delay is too long';

/** `$.x == value` as AWS writes a bad value in a cause (strings bare, the rest as JSON). */
function assignment(path: string, v: unknown): string {
  return `${path} == ${typeof v === 'string' ? v : JSON.stringify(v ?? null)}`;
}

function read(effective: unknown, path: string, field: 'SecondsPath' | 'TimestampPath'): unknown {
  try {
    return readPath(effective, path);
  } catch (e) {
    if (e instanceof PathNotFoundError) throw new StateRuntimeError(`The ${field} parameter does not reference an input value: ${path}`);
    throw e;
  }
}

/** Epoch ms of an RFC 3339 timestamp with a time zone (`Z` or an offset); AWS refuses one without. */
function timestampMs(v: unknown, field: 'Timestamp' | 'TimestampPath', path: string): number {
  const t = parseTimestamp(v);
  if (t === null) {
    throw new StateRuntimeError(`The ${field} parameter does not reference a valid ISO-8601 extended offset date-time format string: ${assignment(path, v)}`);
  }
  // AWS considers whole seconds only and truncates the fraction.
  return t.seconds * 1000;
}

function secondsAt(effective: unknown, path: string): number {
  const v = read(effective, path, 'SecondsPath');
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new StateRuntimeError(`The SecondsPath parameter cannot be parsed as a long value: ${assignment(path, v)}`);
  }
  if (v < 0) throw new StateRuntimeError(`The SecondsPath parameter references a negative value: ${assignment(path, v)}`);
  return v;
}

/** JSONata: Seconds (a number or an expression) or Timestamp (a timestamp or an expression giving one). */
function jsonataUntil(s: Step, def: WaitState): number {
  if (def.Seconds !== undefined) return s.now() + integerField(s, def.Seconds, 'Seconds', 0) * 1000;
  return timestampMs(stringField(s, def.Timestamp, 'Timestamp'), 'Timestamp', 'Timestamp');
}

/** Wait: InputPath, then the absolute deadline from Seconds, Timestamp, SecondsPath or TimestampPath. */
export function runWait(s: Step, def: WaitState): void {
  const r = s.attempt(() => {
    const jsonata = isJsonata(def);
    const effective = jsonata ? s.ctx.input : applyInputPath(s.ctx.input, def.InputPath, s.co());
    let until: number;
    if (jsonata) until = jsonataUntil(s, def);
    else if (def.Seconds !== undefined) until = s.now() + (def.Seconds as number) * 1000;
    else if (def.Timestamp !== undefined) until = timestampMs(def.Timestamp, 'Timestamp', def.Timestamp);
    else if (def.SecondsPath !== undefined) until = s.now() + secondsAt(effective, def.SecondsPath) * 1000;
    else until = timestampMs(read(effective, def.TimestampPath!, 'TimestampPath'), 'TimestampPath', def.TimestampPath!);
    if (until - s.now() > MAX_WAIT_SECONDS * 1000) throw new AslError('States.Runtime', WAIT_TOO_LONG);
    return { effective, until };
  });
  if (!r.ok) {
    s.fail(r.fault);
    return;
  }
  s.ctx.data = r.value.effective;
  s.ctx.waitUntil = r.value.until;
  s.ctx.go = GO_WAIT;
}

/** The wait is over: OutputPath (JSONata: Output) and Assign, exit. */
export function waitDone(s: Step, def: WaitState): void {
  s.ctx.waitUntil = null;
  if (isJsonata(def)) {
    finishJsonata(s, def, s.ctx.input);
    return;
  }
  const r = s.attempt(() => ({
    output: applyOutputPath(s.ctx.data, def.OutputPath, s.co()),
    assigned: evaluateAssign(s, def, def.Assign, 'Assign', {}, s.ctx.data),
  }));
  if (r.ok) exitState(s, def, r.value.output, r.value.assigned);
  else s.fail(r.fault);
}
