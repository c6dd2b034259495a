/** An error as nats.js builds them: a name, maybe a cause (a RequestError wraps the real one). */
interface Cause { name?: unknown; cause?: unknown; isNoResponders?: () => boolean }

/** Whether `e` or any error in its cause chain (eight deep at most) passes `test`. */
export function someCause(e: unknown, test: (c: Cause) => boolean): boolean {
  for (let c = e as Cause | undefined, depth = 0; c && depth < 8; c = c.cause as Cause | undefined, depth++) {
    if (test(c)) return true;
  }
  return false;
}

/**
 * Whether a request failed because no subscriber had its subject (the server answers at once): nobody
 * got it, so sending it again is safe. nats.js wraps its NoRespondersError (named `NoResponders`) in a
 * RequestError; either may come, so the whole cause chain is read.
 */
export function isNoResponders(e: unknown): boolean {
  return someCause(e, (c) => c.isNoResponders?.() === true || c.name === 'NoResponders' || c.name === 'NoRespondersError');
}
