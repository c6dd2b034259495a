/**
 * Whether a request failed because no subscriber had its subject (the server answers at once): nobody
 * got it, so sending it again is safe. nats.js wraps its NoRespondersError (named `NoResponders`) in a
 * RequestError; either may come, so the whole cause chain is read.
 */
export function isNoResponders(e: unknown): boolean {
  for (let c = e as { name?: string; cause?: unknown; isNoResponders?: () => boolean } | undefined; c; c = c.cause as typeof c) {
    if (c.isNoResponders?.() || c.name === 'NoResponders' || c.name === 'NoRespondersError') return true;
  }
  return false;
}
