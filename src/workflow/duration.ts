/**
 * Durations as workflow code writes them: milliseconds, or a string of a number and a unit
 * ('500ms', '30s', '5m', '2h', '30d', '1w'); a bare numeric string is seconds, as SWF writes them.
 */
export type Duration = number | string;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function durationToMs(d: Duration): number {
  if (typeof d === 'number') {
    if (!Number.isFinite(d) || d < 0) throw new RangeError(`invalid duration ${d}`);
    return d;
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(d);
  if (!m) throw new RangeError(`invalid duration '${d}': use a number of ms or e.g. '30s', '5m', '2h', '30d'`);
  return Number(m[1]) * UNIT_MS[m[2] ?? 's']!;
}

/** SWF's duration: whole seconds as a string (rounded up, so a wait is never shorter than asked). */
export function swfSeconds(d: Duration): string {
  return String(Math.ceil(durationToMs(d) / 1000));
}
