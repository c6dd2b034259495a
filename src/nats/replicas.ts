import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Replicas for the engine's streams and buckets: 3 when the server we joined is part of a
 * cluster of at least 3 servers (its INFO lists their client URLs in `connect_urls`), else 1.
 */
export function detectReplicas(nc: NatsConnection): number {
  const info = nc.info as { cluster?: string; connect_urls?: string[] } | undefined;
  if (!info?.cluster) return 1;
  return (info.connect_urls?.length ?? 1) >= 3 ? 3 : 1;
}
