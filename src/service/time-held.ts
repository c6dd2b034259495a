import type { TimeSkipping } from '../engine/clock.js';
import type { Operation } from './context.js';

/**
 * Calls that change nothing: reads (a test polling DescribeWorkflowExecution for the result must
 * not stop time), and long polls, which wait in real time for a task and must neither hold time
 * nor spin it (GetActivityTask included). StartSyncExecution waits for its execution's end, which
 * its Wait states may put ahead in virtual time (its start holds time as every command does).
 */
const UNHELD = /^(Describe|List|Count|Get|PollFor|StartSync)/;

/**
 * The operations, each holding a time-skipping clock still while it is served (a signal, a
 * worker's answer, a start), so time cannot jump between a request's arrival and its command.
 * Reads and long polls are left as they are; without a time-skipping clock the table is returned unchanged.
 */
export function timeHeld(ops: Readonly<Record<string, Operation>>, skipping: TimeSkipping | undefined): Readonly<Record<string, Operation>> {
  if (!skipping) return ops;
  const out: Record<string, Operation> = {};
  for (const [name, op] of Object.entries(ops)) {
    out[name] = UNHELD.test(name) ? op : async (ctx, input, signal) => {
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
