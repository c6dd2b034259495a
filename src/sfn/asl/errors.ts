import type { Retrier } from './types.js';

/**
 * A States Language runtime error: `error` is the name a Retry/Catch matches
 * (`States.ParameterPathFailure`, `States.Runtime`, …), `cause` the human-readable text AWS reports.
 */
export class AslError extends Error {
  override readonly name = 'AslError';
  constructor(readonly error: string, override readonly cause: string) {
    super(`${error}: ${cause}`);
  }
}

/**
 * A States.Runtime failure AWS words as `An error occurred while executing the state 'X' (entered
 * at the event id #N). <cause>`: the step that catches it adds the state (compile/state-cause.ts).
 */
export class StateRuntimeError extends AslError {
  constructor(cause: string) {
    super('States.Runtime', cause);
  }
}

export function isAslError(e: unknown, error?: string): e is AslError {
  return e instanceof AslError && (error === undefined || e.error === error);
}

// Errors no wildcard catches or retries (AWS: States.Runtime is terminal; DataLimitExceeded too).
const NOT_CAUGHT_BY_ALL = new Set(['States.Runtime', 'States.DataLimitExceeded']);
const NOT_TASK_FAILED = new Set(['States.Timeout', 'States.HeartbeatTimeout', 'States.Runtime']);

/** Does one of a Retrier's/Catcher's ErrorEquals names match `error` (`heartbeat`: a States.Timeout from a missed heartbeat)? */
export function matchesError(errorEquals: readonly string[], error: string, heartbeat = false): boolean {
  for (const name of errorEquals) {
    if (name === error) return true;
    if (name === 'States.HeartbeatTimeout' && heartbeat) return true;
    if (name === 'States.ALL' && !NOT_CAUGHT_BY_ALL.has(error)) return true;
    if (name === 'States.TaskFailed' && !NOT_TASK_FAILED.has(error) && !NOT_CAUGHT_BY_ALL.has(error)) return true;
    // A fault stored before heartbeat timeouts were recorded as States.Timeout.
    if (name === 'States.Timeout' && error === 'States.HeartbeatTimeout') return true;
  }
  return false;
}

/** A Retrier's MaxAttempts (default 3; 0 = never retry). */
export function maxAttempts(r: Retrier): number {
  return r.MaxAttempts ?? 3;
}

/**
 * The delay before retry `attempt` (1-based) in whole milliseconds:
 * IntervalSeconds·BackoffRate^(attempt−1), capped by MaxDelaySeconds, scaled by random() under FULL jitter.
 */
export function retryDelayMs(r: Retrier, attempt: number, random: () => number): number {
  const interval = r.IntervalSeconds ?? 1;
  const backoff = r.BackoffRate ?? 2;
  let seconds = interval * Math.pow(backoff, Math.max(0, attempt - 1));
  if (r.MaxDelaySeconds !== undefined && seconds > r.MaxDelaySeconds) seconds = r.MaxDelaySeconds;
  const ms = seconds * 1000;
  if (r.JitterStrategy === 'FULL') return Math.floor(random() * ms);
  return Math.round(ms);
}
