import { readServiceResource, type IntegrationPattern, type ServiceResource } from './integration.js';

/**
 * Every service integration ActorFlow serves: resourceType → action → the patterns it allows. This is
 * the one table validation reads (CreateStateMachine, ValidateStateMachineDefinition, also on the
 * definition worker thread), so it is plain data with no node behind it; an integration registered
 * on a node (registry.ts) must serve exactly what its row says. Add an integration here first.
 */
export const KNOWN_INTEGRATIONS = {
  /** `arn:aws:states:::http:invoke`: HTTPS endpoints (http-invoke.ts). */
  http: { invoke: ['request'] },
  /** `arn:aws:states:::lambda:invoke`: a Lambda function (lambda-invoke.ts). */
  lambda: { invoke: ['request', 'waitForTaskToken'] },
  /** `arn:aws:states:::states:startExecution`: a child execution (start-execution.ts). */
  states: { startExecution: ['request', 'sync', 'sync:2', 'waitForTaskToken'] },
  /** `arn:actorflow:states:::nats:publish`: a message on a NATS subject (nats-publish.ts). */
  nats: { publish: ['request', 'waitForTaskToken'] },
} as const satisfies Record<string, Record<string, readonly IntegrationPattern[]>>;

/** The resource types of ActorFlow's own (`arn:actorflow:…`); every other one is AWS's (`arn:aws…`). */
const ACTORFLOW_TYPES: ReadonlySet<string> = new Set(['nats']);

type Table = Readonly<Record<string, Readonly<Record<string, readonly IntegrationPattern[]>>>>;

/** The patterns `table` allows for a resource type's action (none when it does not know the action). */
export function patternsOf(resourceType: string, action: string, table: Table = KNOWN_INTEGRATIONS): readonly IntegrationPattern[] {
  const actions = Object.hasOwn(table, resourceType) ? table[resourceType]! : undefined;
  return actions && Object.hasOwn(actions, action) ? actions[action]! : [];
}

/** The service resource an ARN names when ActorFlow serves it (its type, action and pattern), else undefined. */
export function knownServiceResource(arn: string): ServiceResource | undefined {
  const r = readServiceResource(arn);
  if (!r) return undefined;
  if (arn.startsWith('arn:actorflow:') !== ACTORFLOW_TYPES.has(r.resourceType)) return undefined;
  return patternsOf(r.resourceType, r.action).includes(r.pattern) ? r : undefined;
}
