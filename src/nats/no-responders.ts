/** Whether a request failed because no subscriber had its subject (the server answers at once): nobody got it, so sending it again is safe. */
export function isNoResponders(e: unknown): boolean {
  for (let c = e as { name?: string; cause?: unknown; isNoResponders?: () => boolean } | undefined; c; c = c.cause as typeof c) {
    if (c.isNoResponders?.() || c.name === 'NoRespondersError') return true;
  }
  return false;
}
