/** A duration as people write one: milliseconds, or a number with a unit (`'30d'`, `'7d'`, `'1h'`, `'15m'`, `'10s'`, `'250ms'`, `'2w'`). Shared by workflow code (`wf.sleep`) and the test environment (`env.sleep`). */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd' | 'w'}`;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The duration in ms; throws on a negative, non-finite or unreadable one. */
export function durationToMs(d: Duration): number {
  let ms: number;
  if (typeof d === 'number') ms = d;
  else {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(d.trim());
    if (!m) throw new TypeError(`not a duration: ${JSON.stringify(d)} (use ms, or a number with ms, s, m, h, d or w: '30d')`);
    ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a duration must be a finite number of ms ≥ 0, got ${String(d)}`);
  return ms;
}
