import type { HistoryEvent, MachineClock } from '../../machines/swf/history-event.js';

/**
 * The clock XState actors run on, plus `now()` for deadlines and history timestamps: every
 * deadline and every time written in history is read from here, never from `Date.now()`.
 */
export interface EngineClock extends MachineClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  /** Set on a virtual clock that skips time (see VirtualClock): what the engine tells it. */
  readonly skipping?: TimeSkipping;
}

/** What the engine reports to a time-skipping clock, so time jumps only while nothing runs. */
export interface TimeSkipping {
  /** Work began that time must not jump under (a command, a history append); call the result when it ends. */
  hold(): () => void;
  /** A transition was stored (the tasks it hands out or closes). */
  stored(historyId: string, events: readonly HistoryEvent[]): void;
  /** The same clock for housekeeping timers (retention) that time never jumps to: they fire when time passes them. */
  readonly background: EngineClock;
}

const MAX_TIMEOUT = 2 ** 31 - 1;

/**
 * Real time that survives waits longer than 2^31-1 ms (Node fires those after 1 ms): a long wait is
 * chained in steps, each re-reading how much is left, so it also tolerates event-loop stalls.
 */
export function createSystemClock(): EngineClock {
  let next = 1;
  const handles = new Map<number, NodeJS.Timeout>();
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const due = Date.now() + Math.max(0, ms);
      const arm = () => {
        const left = due - Date.now();
        // Node timers may fire up to 1 ms before Date.now() reaches the due time: wait out the rest,
        // so a deadline never comes due (and is never stamped in history) early.
        const h = left > MAX_TIMEOUT
          ? setTimeout(arm, MAX_TIMEOUT)
          : setTimeout(() => { if (Date.now() < due) { arm(); return; } handles.delete(id); fn(); }, Math.max(0, left));
        h.unref?.();
        handles.set(id, h);
      };
      arm();
      return id;
    },
    clearTimeout(id) {
      const h = handles.get(id as number);
      if (h !== undefined) { clearTimeout(h); handles.delete(id as number); }
    },
  };
}
