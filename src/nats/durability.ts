/**
 * What a JetStream acknowledgement means, chosen with AF_DURABILITY:
 * - `default`: nats-server's own setting. The write is in the server's memory and its file's page
 *   cache when the ack comes; the server syncs to disk every 2 minutes (nats-server 2.10+). A crash of
 *   the nats-server *process* loses nothing; a crash of the *machine* (power, kernel) can lose the
 *   acknowledged writes of up to the last sync interval. On a 3-server cluster (R3) a write is
 *   acknowledged once a majority holds it, so only a crash of two machines at once can lose it.
 * - `fsync`: `sync_interval: always`: every acknowledged append is on disk (nats-server 2.10+).
 *   Costs throughput (README "Durability"); nothing acknowledged is lost even when the machine dies.
 */
export type Durability = 'default' | 'fsync';

export function durabilityFromEnv(env: NodeJS.ProcessEnv = process.env): Durability {
  const v = (env.AF_DURABILITY ?? 'default').trim().toLowerCase();
  if (v === 'default' || v === 'fsync') return v;
  throw new Error(`AF_DURABILITY must be "default" or "fsync", got ${JSON.stringify(env.AF_DURABILITY)}`);
}

/**
 * A nats-server configuration with the durability applied: for `fsync`, `sync_interval: always` as
 * the first line of its `jetstream { … }` block (a config without that block is returned as it is:
 * it runs no JetStream).
 */
export function withDurability(conf: string, durability: Durability): string {
  if (durability === 'default') return conf;
  const block = /^(\s*jetstream\s*\{)/m;
  if (!block.test(conf)) return conf;
  return conf.replace(block, '$1\n  # AF_DURABILITY=fsync: every acknowledged append is on disk.\n  sync_interval: always');
}
