/** SWF durations: strings of decimal seconds or "NONE", at most one year. */
export const MAX_DURATION_SECONDS = 31_536_000;

/** Milliseconds for a valid duration string; `null` for "NONE". Call only on validated input. */
export function durationMs(value: string): number | null {
  return value === 'NONE' ? null : Number(value) * 1000;
}

/** Why `value` is not a valid SWF duration, or `undefined` when it is. */
export function durationProblem(value: string, allowNone: boolean): string | undefined {
  if (value.length < 1 || value.length > 8) return 'Member must have length between 1 and 8';
  if (value === 'NONE') return allowNone ? undefined : 'NONE is not allowed here';
  if (!/^\d+$/.test(value)) return 'Member must be a number of seconds or NONE';
  if (Number(value) > MAX_DURATION_SECONDS) return `Member must be at most ${MAX_DURATION_SECONDS} seconds (one year)`;
  return undefined;
}
