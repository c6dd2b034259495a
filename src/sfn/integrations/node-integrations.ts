import type { NatsConnection } from '@nats-io/transport-node';
import type { IntegrationDeps } from './integration.js';
import { natsPublishIntegration } from './nats-publish.js';
import { IntegrationRegistry } from './registry.js';

/** What the node hands its integrations. */
export interface NodeIntegrationDeps extends IntegrationDeps {
  nc: NatsConnection;
  /** AF_SFN_NATS_PUBLISH_PREFIX, resolved. */
  natsPublishPrefix: string;
}

/**
 * The service integrations one node serves, built once at start-up (src/server.ts). Each family
 * listed in known.ts registers here, one line each.
 */
export function nodeIntegrations(deps: NodeIntegrationDeps): IntegrationRegistry {
  return new IntegrationRegistry()
    .register(natsPublishIntegration({ nc: deps.nc, prefix: deps.natsPublishPrefix }));
}
