import type { Integration, ServiceResource } from './integration.js';
import { knownServiceResource, patternsOf } from './known.js';

/**
 * The service integrations of one node, by resourceType. Validation accepts what the static table
 * (known.ts) lists; a node serves what is registered here, which must match that table's rows.
 */
export class IntegrationRegistry {
  private readonly byType = new Map<string, Integration>();

  /** Adds an integration; one per resourceType, serving only actions and patterns known.ts lists. */
  register(integration: Integration): this {
    const type = integration.resourceType;
    if (this.byType.has(type)) throw new Error(`an integration for resourceType '${type}' is registered already`);
    for (const [action, patterns] of Object.entries(integration.actions)) {
      const known = patternsOf(type, action);
      const extra = patterns.filter((p) => !known.includes(p));
      if (known.length === 0 || extra.length > 0) {
        throw new Error(`integration '${type}' serves ${action} [${patterns.join(', ')}], which src/sfn/integrations/known.ts does not list`);
      }
    }
    this.byType.set(type, integration);
    return this;
  }

  /** The integration of a resourceType, if one is registered. */
  find(resourceType: string): Integration | undefined {
    return this.byType.get(resourceType);
  }

  /** The integration that serves a Task's Resource, with the resource read; undefined when none does. */
  resolve(arn: string): { integration: Integration; service: ServiceResource } | undefined {
    const service = knownServiceResource(arn);
    const integration = service && this.byType.get(service.resourceType);
    if (!service || !integration) return undefined;
    return integration.actions[service.action]?.includes(service.pattern) ? { integration, service } : undefined;
  }
}
