import type { NatsConnection } from '@nats-io/transport-node';
import type { Subjects } from '../../nats/subjects.js';
import type { IntegrationDeps } from './integration.js';
import { natsPublishIntegration } from './nats-publish.js';
import { IntegrationRegistry } from './registry.js';
import { StartExecutionIntegration } from './start-execution.js';

/** What the node hands its integrations. */
export interface NodeIntegrationDeps extends IntegrationDeps {
  nc: NatsConnection;
  subjects: Subjects;
  /** AF_SFN_NATS_PUBLISH_PREFIX, resolved. */
  natsPublishPrefix: string;
}

/**
 * The service integrations one node serves, built once at start-up (src/server.ts). Each family
 * listed in known.ts registers here, one line each.
 */
export function nodeIntegrations(deps: NodeIntegrationDeps): IntegrationRegistry {
  return new IntegrationRegistry()
    .register(natsPublishIntegration({ nc: deps.nc, prefix: deps.natsPublishPrefix }))
    .register(new StartExecutionIntegration(deps));
}
