import { MAX_TRANSITION_BYTES } from '../../history/history-store.js';
import { encode } from '../../nats/codec.js';
import type { SfnStoredEvent } from './sfn-events.js';

/** Room kept for the message envelope (map headers, the `events` array header). */
const ENVELOPE_BYTES = 4096;

/**
 * Splits the events of one transition too large for one history message (a long run of Pass and
 * Choice states can record thousands in one step) into runs that each fit beside `extra`. An event
 * too large on its own stays alone in its run; the store then refuses it.
 */
export function chunkEvents(events: readonly SfnStoredEvent[], extra: unknown): SfnStoredEvent[][] {
  const room = MAX_TRANSITION_BYTES - encode(extra).length - ENVELOPE_BYTES;
  const chunks: SfnStoredEvent[][] = [];
  let run: SfnStoredEvent[] = [];
  let size = 0;
  for (const e of events) {
    const bytes = encode(e).length;
    if (run.length > 0 && size + bytes > room) {
      chunks.push(run);
      run = [];
      size = 0;
    }
    run.push(e);
    size += bytes;
  }
  if (run.length > 0) chunks.push(run);
  return chunks;
}
