/** Step Functions histories as terminal timelines (the `sfn history` and `sfn start --wait` output). */

/** A GetExecutionHistory event as the API sends it (epoch-second timestamps). */
export interface SfnHistoryEvent {
  id: number;
  type: string;
  timestamp: number;
  previousEventId?: number;
  [details: string]: unknown;
}

const SHOWN = ['name', 'resource', 'workerName', 'error', 'cause', 'input', 'output'];

/** The event's details member (`stateEnteredEventDetails`, `activityFailedEventDetails`, …). */
export function detailsOf(e: SfnHistoryEvent): Record<string, unknown> {
  for (const [k, v] of Object.entries(e)) if (k.endsWith('EventDetails') && v && typeof v === 'object') return v as Record<string, unknown>;
  return {};
}

/** One line: event id, time since `t0` (epoch seconds), type, key details. */
export function timelineLine(e: SfnHistoryEvent, t0: number): string {
  const d = detailsOf(e);
  const shown = SHOWN.filter((k) => d[k] !== undefined && d[k] !== '').map((k) => {
    const v = String(d[k]);
    return `${k}=${v.length > 60 ? `${v.slice(0, 59)}…` : v}`;
  });
  const ms = Math.round((e.timestamp - t0) * 1000);
  return `${String(e.id).padStart(3)}  +${String(ms).padStart(6)} ms  ${e.type.padEnd(28)} ${shown.join(' ')}`.trimEnd();
}

export function formatSfnTimeline(events: readonly SfnHistoryEvent[]): string {
  const t0 = events[0]?.timestamp ?? 0;
  return events.map((e) => timelineLine(e, t0)).join('\n');
}
