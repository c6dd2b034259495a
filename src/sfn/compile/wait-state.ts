import { applyInputPath, applyOutputPath } from '../asl/data-flow.js';
import { AslError } from '../asl/errors.js';
import { readPath } from '../asl/json-path.js';
import type { WaitState } from '../asl/types.js';
import { GO_WAIT, json } from './graph-context.js';
import { exitState } from './state-flow.js';
import type { Step } from './step.js';

function timestampMs(v: unknown, where: string): number {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw new AslError('States.Runtime', `${where} is not an ISO-8601 timestamp: ${json(v)}`);
  return ms;
}

/** Wait: InputPath, then the absolute deadline from Seconds, Timestamp, SecondsPath or TimestampPath. */
export function runWait(s: Step, def: WaitState): void {
  const r = s.attempt(() => {
    const effective = applyInputPath(s.ctx.input, def.InputPath, s.co());
    let until: number;
    if (def.Seconds !== undefined) until = s.now() + def.Seconds * 1000;
    else if (def.Timestamp !== undefined) until = timestampMs(def.Timestamp, 'Timestamp');
    else if (def.SecondsPath !== undefined) {
      const v = readPath(effective, def.SecondsPath);
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
        throw new AslError('States.Runtime', `The value at SecondsPath ${def.SecondsPath} must be a non-negative integer, got ${json(v)}`);
      }
      until = s.now() + v * 1000;
    } else until = timestampMs(readPath(effective, def.TimestampPath!), `The value at TimestampPath ${def.TimestampPath}`);
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

/** The wait is over: OutputPath, exit. */
export function waitDone(s: Step, def: WaitState): void {
  s.ctx.waitUntil = null;
  const r = s.attempt(() => applyOutputPath(s.ctx.data, def.OutputPath, s.co()));
  if (r.ok) exitState(s, def, r.value);
  else s.fail(r.fault);
}
