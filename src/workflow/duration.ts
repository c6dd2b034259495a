import { durationToMs, type Duration } from '../protocol/human-duration.js';

export { durationToMs, type Duration };

/** SWF's duration: whole seconds as a string (rounded up, so a wait is never shorter than asked). */
export function swfSeconds(d: Duration): string {
  return String(Math.ceil(durationToMs(d) / 1000));
}
