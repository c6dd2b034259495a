import type { Logger } from 'pino';

/**
 * The contract between the Step Functions host and a service integration (a Task state whose
 * Resource is not an activity). The host records TaskScheduled, persists it, then calls `invoke`
 * after the persist (persist then act); what `invoke` answers becomes TaskSucceeded/TaskFailed (or,
 * for `.waitForTaskToken`, TaskSubmitted, and the task then waits for SendTaskSuccess/Failure with
 * its token). After a crash, a task that was scheduled and not finished is invoked again: an
 * integration with side effects must be idempotent by `taskKey` where the service allows it
 * (a child execution's name), and is at least once otherwise, as on AWS.
 */

/** How a Task waits on its service: AWS's three patterns (`.sync:2` is `.sync` with JSON output). */
export type IntegrationPattern = 'request' | 'sync' | 'sync:2' | 'waitForTaskToken';

/** A Task state's Resource, read. */
export interface ServiceResource {
  /** AWS's `resourceType` in TaskScheduled and the Task* events: `states`, `http`, `lambda`, `nats`. */
  resourceType: string;
  /** AWS's `resource` in those events: the action and its suffix, e.g. `startExecution.sync:2`, `invoke`. */
  resource: string;
  /** The action without the suffix, e.g. `startExecution`. */
  action: string;
  pattern: IntegrationPattern;
}

const SERVICE_ARN = /^arn:(aws(?:-[a-z]+)*|actorflow):states:::([a-z0-9-]+):([A-Za-z0-9]+)(?:\.(sync:2|sync|waitForTaskToken))?$/;

/** Reads `arn:aws:states:::<service>:<action>[.sync|.sync:2|.waitForTaskToken]`; undefined for anything else. */
export function readServiceResource(arn: string): ServiceResource | undefined {
  const m = SERVICE_ARN.exec(arn);
  if (!m) return undefined;
  const [, , service, action, suffix] = m as unknown as [string, string, string, string, string | undefined];
  const pattern: IntegrationPattern = suffix === undefined ? 'request' : suffix as IntegrationPattern;
  return { resourceType: service, resource: suffix === undefined ? action : `${action}.${suffix}`, action, pattern };
}

/** One invocation of an integration: one scheduling attempt of one Task state. */
export interface IntegrationCall {
  /** The Task state's Resource ARN as written. */
  resourceArn: string;
  service: ServiceResource;
  /** The effective parameters (Parameters or Arguments evaluated; `$$.Task.Token` already in them), parsed. */
  parameters: unknown;
  executionArn: string;
  stateName: string;
  /** Unique per scheduling attempt within the execution (`<actorId>#<n>`): a stable name for idempotent effects. */
  taskKey: string;
  /** The task token (`$$.Task.Token`): set for `.waitForTaskToken`. */
  taskToken?: string;
  /** Epoch ms by which the Task times out (its TimeoutSeconds), if it has one. */
  deadline?: number;
  /** Aborted when the Task state ends without this call (timeout, stop, a failed Parallel branch). */
  signal: AbortSignal;
  /**
   * `.sync`: call once the request is accepted (TaskSubmitted with `output`), then resolve when the
   * work is done. Ignored for the other patterns (a `.waitForTaskToken` call's answer is TaskSubmitted's).
   */
  submitted?(output: unknown): void;
}

/** What an invocation came to: the Task's result, or an error and cause as AWS names them. */
export type IntegrationResult =
  | { ok: true; output: unknown }
  | { ok: false; error: string; cause: string };

/** One service integration: the actions and patterns it serves. */
export interface Integration {
  /** `resourceType` it serves (`http`, `lambda`, `states`, `nats`). */
  readonly resourceType: string;
  /** Actions it serves with the patterns each allows, e.g. `{ invoke: ['request', 'waitForTaskToken'] }`. */
  readonly actions: Readonly<Record<string, readonly IntegrationPattern[]>>;
  /**
   * Checks parameters known when the definition is written (a static Parameters/Arguments object);
   * answers the problem as AWS words it, or undefined. Optional.
   */
  check?(action: string, parameters: unknown): string | undefined;
  /**
   * Request-response: resolves with the service's answer. `.sync`: resolves when the work is done.
   * `.waitForTaskToken`: resolves once the request is delivered (its output is TaskSubmitted's).
   * Never throws for a service-side error: answers `{ ok: false }` with AWS's error name.
   */
  invoke(call: IntegrationCall): Promise<IntegrationResult>;
}

/** What the node gives its integrations. */
export interface IntegrationDeps {
  /** Calls a Step Functions action on this node's service (as the NATS API would), e.g. `StartExecution`. */
  call(action: string, input: unknown, signal?: AbortSignal): Promise<unknown>;
  log: Logger;
}

/**
 * A test hook (Step Functions Local's mock config): consulted after a Task's scheduling event is
 * persisted and before its integration is invoked or its activity enqueued. An answer is the task's
 * result (the integration or activity is then never called); undefined lets the task run for real.
 * `attempt` counts the tasks of this state name the execution scheduled before (0 the first time).
 */
export type MockHook = (m: { executionArn: string; stateName: string; resource: string; attempt: number }) => Promise<IntegrationResult | undefined>;
