/**
 * The oldest nats-server ActorFlow trusts with its history: 2.9 acknowledges a JetStream write
 * before it reaches the disk, and `sync_interval` (AF_DURABILITY=fsync) came with 2.10.
 */
export const OLDEST_TRUSTED = [2, 10] as const;

/** Whether `version` (the server's INFO `version`, e.g. "2.9.10") is older than 2.10; false when unreadable. */
export function olderThanTrusted(version: string | undefined): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major < OLDEST_TRUSTED[0] || (major === OLDEST_TRUSTED[0] && minor < OLDEST_TRUSTED[1]);
}

/** The warning a node logs once it is connected to such a server. */
export function oldServerWarning(version: string): string {
  return `nats-server ${version} is older than ${OLDEST_TRUSTED.join('.')}: it acknowledges a write before it reaches the disk, and AF_DURABILITY=fsync needs ${OLDEST_TRUSTED.join('.')}; `
    + 'install a current one (bash scripts/current-nats-server.sh fetches one into .tools/, or set NATS_SERVER_BIN)';
}
