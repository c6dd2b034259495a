import type { NatsConnection } from '@nats-io/transport-node';
import type { HttpTaskConfig } from './http-config.js';
import { HttpInvokeIntegration } from './http-invoke.js';
import type { IntegrationDeps } from './integration.js';
import type { LambdaTarget } from './lambda-config.js';
import { LambdaInvokeIntegration } from './lambda-invoke.js';
import { natsPublishIntegration } from './nats-publish.js';
import { IntegrationRegistry } from './registry.js';

/** What the node hands its integrations. */
export interface NodeIntegrationDeps extends IntegrationDeps {
  nc: NatsConnection;
  /** AF_SFN_NATS_PUBLISH_PREFIX, resolved. */
  natsPublishPrefix: string;
  /** AF_SFN_HTTP_CONFIG, resolved: the hosts and connections of http:invoke. */
  http: HttpTaskConfig;
  /** AF_SFN_LAMBDA_*, resolved: where lambda:invoke calls (none: those tasks fail at run time). */
  lambda: LambdaTarget | undefined;
}

/**
 * The service integrations one node serves, built once at start-up (src/server.ts). Each family
 * listed in known.ts registers here, one line each.
 */
export function nodeIntegrations(deps: NodeIntegrationDeps): IntegrationRegistry {
  return new IntegrationRegistry()
    .register(natsPublishIntegration({ nc: deps.nc, prefix: deps.natsPublishPrefix }))
    .register(new HttpInvokeIntegration(deps.http))
    .register(new LambdaInvokeIntegration(deps.lambda));
}
