import type { TimeSkipping } from '../engine/clock.js';
import type { Operation } from './context.js';

/** Long polls wait in real time for a task: they are not work, and must neither hold time nor spin it. */
const LONG_POLLS = new Set(['PollForDecisionTask', 'PollForActivityTask', 'GetActivityTask']);

/**
 * The operations, each holding a time-skipping clock still while it is served (a signal, a
 * worker's answer, a start), so time cannot jump between a request's arrival and its command.
 * Long polls are left as they are; without a time-skipping clock the table is returned unchanged.
 */
export function timeHeld(ops: Readonly<Record<string, Operation>>, skipping: TimeSkipping | undefined): Readonly<Record<string, Operation>> {
  if (!skipping) return ops;
  const out: Record<string, Operation> = {};
  for (const [name, op] of Object.entries(ops)) {
    out[name] = LONG_POLLS.has(name) ? op : async (ctx, input, signal) => {
      const release = skipping.hold();
      try {
        return await op(ctx, input, signal);
      } finally {
        release();
      }
    };
  }
  return out;
}
