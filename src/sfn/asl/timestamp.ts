/**
 * RFC 3339 timestamps as the States Language accepts them (uppercase `T` and `Z`, optional
 * fractional seconds of any length, `Z` or a ±hh:mm offset), compared as instants.
 */
export interface Instant {
  /** Whole seconds since the epoch, UTC. */
  seconds: number;
  /** The fractional second's digits, right-padded to 12 (compares as text). */
  fraction: string;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,12}))?(Z|([+-])(\d{2}):(\d{2}))$/;

/** The instant `s` denotes, or null when it is not an RFC 3339 timestamp. */
export function parseTimestamp(s: unknown): Instant | null {
  if (typeof s !== 'string') return null;
  const m = RFC3339.exec(s);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  let offset = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = d.getTime() / 1000 + hour * 3600 + minute * 60 + second - offset;
  return { seconds, fraction: (m[7] ?? '').padEnd(12, '0') };
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds - b.seconds;
  return a.fraction < b.fraction ? -1 : a.fraction > b.fraction ? 1 : 0;
}
