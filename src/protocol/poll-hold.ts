import type { InputReader } from './validate.js';

/** SWF's poll hold, and the longest one: AWS SDK clients (and ours) give up on a poll after 70 s. */
export const MAX_POLL_MS = 60_000;

/**
 * How long a poll is held: the node's poll hold (`ctx.pollHoldMs`, AF_POLL_HOLD_MS; 60 s as in SWF).
 * The NATS SDK may ask for less with the extension member `afPollTimeoutMs` (1,000–60,000), so its
 * pollers can stop quickly; AWS clients never send it. Neither is held past the node's hold.
 */
export function pollMs(r: InputReader, hold = MAX_POLL_MS): number {
  return Math.min(r.int('afPollTimeoutMs', { min: 1000, max: MAX_POLL_MS }) ?? hold, hold);
}
