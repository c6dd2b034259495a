import type { Logger } from 'pino';
import type { TaskQueues } from '../matching/task-queues.js';
import type { Registry } from '../registry/registry.js';
import type { EngineClock } from '../engine/clock.js';
import type { Router } from '../engine/router.js';
import type { HistoryStore } from '../history/history-store.js';
import type { Subjects } from '../nats/subjects.js';
import type { VisibilityIndex } from '../swf/visibility-index.js';
import type { ExecutionRecords } from '../sfn/kind/execution-records.js';
import type { SfnVisibilityIndex } from '../sfn/visibility/sfn-visibility-index.js';
import type { MapRunRecords } from '../sfn/map-runs/map-run-records.js';
import type { TaskTokens } from '../engine/task-token.js';
import type { MockConfig } from '../sfn/mocks/mock-config.js';
import type { ExpressHost } from '../sfn/express/express-host.js';
import type { IntegrationRegistry } from '../sfn/integrations/registry.js';

/** Everything an operation needs; built once per node and shared by both transports. */
export interface ServiceContext {
  registry: Registry;
  router: Router;
  queues: TaskQueues;
  store: HistoryStore;
  /** This node's view of AF_VISIBILITY (List/Count Open/Closed WorkflowExecutions). */
  visibility: VisibilityIndex;
  subjects: Subjects;
  clock: EngineClock;
  log: Logger;
  region: string;
  account: string;
  /** Seals and opens task tokens with the cluster's key (SWF and Step Functions). */
  tokens: TaskTokens;
  /** How long a poll is held when no task comes (the node config's pollHoldMs; default 60 s). */
  pollHoldMs?: number;
  /** Step Functions execution records (set when the node runs the Step Functions host). */
  sfnExecutions?: ExecutionRecords;
  /** This node's view of the Step Functions records in AF_VISIBILITY (ListExecutions). */
  sfnVisibility?: SfnVisibilityIndex;
  /** The Distributed Map runs' records (set with sfnExecutions). */
  sfnMapRuns?: MapRunRecords;
  /** The Step Functions Local mock configuration, when the node loaded one (StartExecution's `#TestCase`). */
  sfnMocks?: MockConfig;
  /** Runs EXPRESS executions in this node's memory (set when the node runs the Step Functions host). */
  sfnExpress?: ExpressHost;
  /** The service integrations this node serves (TestState invokes one for a Task tested without a mock). */
  sfnIntegrations?: IntegrationRegistry;
  /**
   * Set per request by the HTTP gateway for an access key limited to some domains: ListDomains shows
   * only the domains it allows (every other operation is refused before it runs; see transport/domain-access.ts).
   */
  allowsDomain?: (name: string) => boolean;
}

/** One API operation: validate the input, act, shape the output (AWS JSON shapes, epoch seconds). */
export type Operation = (ctx: ServiceContext, input: unknown, signal?: AbortSignal) => Promise<unknown>;

/** Epoch ms → the AWS JSON timestamp (epoch seconds). */
export const seconds = (ms: number): number => ms / 1000;
