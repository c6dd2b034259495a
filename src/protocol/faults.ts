/** Fault names exactly as the AWS SDK models spell them (SWF and Step Functions). */
export type FaultName =
  | 'ValidationException' | 'UnknownResourceFault' | 'DomainAlreadyExistsFault' | 'DomainDeprecatedFault'
  | 'TypeAlreadyExistsFault' | 'TypeDeprecatedFault' | 'TypeNotDeprecatedFault'
  | 'WorkflowExecutionAlreadyStartedFault' | 'DefaultUndefinedFault' | 'LimitExceededFault'
  | 'TooManyTagsFault' | 'OperationNotPermittedFault' | 'ThrottlingException' | 'SerializationException'
  | 'UnknownOperationException' | 'InternalFailure' | 'ServiceUnavailable'
  // Step Functions (ValidationException is shared with SWF)
  | 'ActivityDoesNotExist' | 'ActivityAlreadyExists' | 'ActivityLimitExceeded' | 'ActivityWorkerLimitExceeded'
  | 'InvalidArn' | 'InvalidName' | 'InvalidDefinition' | 'InvalidToken' | 'InvalidOutput' | 'InvalidExecutionInput'
  | 'TaskDoesNotExist' | 'TaskTimedOut' | 'StateMachineDoesNotExist' | 'StateMachineAlreadyExists'
  | 'StateMachineDeleting' | 'StateMachineLimitExceeded' | 'ExecutionDoesNotExist' | 'ExecutionAlreadyExists'
  | 'ExecutionLimitExceeded' | 'ExecutionNotRedrivable' | 'TooManyTags' | 'AccessDeniedException' | 'ConflictException' | 'ResourceNotFound'
  | 'ServiceQuotaExceededException' | 'InvalidLoggingConfiguration' | 'StateMachineTypeNotSupported';

export interface FaultOptions extends ErrorOptions {
  /**
   * The same request may succeed if sent again (a node shutting down, a partition changing owner, a
   * concurrent change). Default: true for InternalFailure, ServiceUnavailable and ThrottlingException
   * (AWS SDKs retry those too: 5xx by status, throttling by code), false for the rest.
   */
  retryable?: boolean;
}

/**
 * A wire fault: created by the service layer, turned into a wire error only by the transports.
 * Whether to send the request again is its `retryable` flag, never a word in its message.
 */
export class Fault extends Error {
  override readonly name: FaultName;
  readonly retryable: boolean;
  constructor(name: FaultName, message: string, options?: FaultOptions) {
    super(message, options);
    this.name = name;
    this.retryable = options?.retryable ?? (name === 'InternalFailure' || name === 'ServiceUnavailable' || name === 'ThrottlingException');
  }
}

/** The HTTP status a fault is answered with (AWS: 400, except these). */
export function faultStatus(name: FaultName): number {
  if (name === 'InternalFailure') return 500;
  if (name === 'ServiceUnavailable') return 503;
  if (name === 'ConflictException') return 409;
  return 400;
}

export function isFault(e: unknown, name?: FaultName): e is Fault {
  return e instanceof Fault && (name === undefined || e.name === name);
}

export const fault = {
  validation: (message: string) => new Fault('ValidationException', message),
  unknown: (message: string) => new Fault('UnknownResourceFault', message),
  unknownDomain: (name: string) => new Fault('UnknownResourceFault', `Unknown domain: ${name}`),
  /** AWS's words: `Unknown execution: WorkflowExecution=[workflowId=w, runId=r]`, or `Unknown execution, workflowId = w` without a runId. */
  unknownExecution: (workflowId: string, runId?: string) =>
    new Fault('UnknownResourceFault', runId === undefined
      ? `Unknown execution, workflowId = ${workflowId}`
      : `Unknown execution: WorkflowExecution=[workflowId=${workflowId}, runId=${runId}]`),
  /** AWS names just the domain: DeprecateDomain twice, or a new type or execution in a deprecated domain. */
  domainDeprecated: (name: string) => new Fault('DomainDeprecatedFault', name),
  /** AWS answers an open workflowId with just these words. */
  alreadyStarted: () => new Fault('WorkflowExecutionAlreadyStartedFault', 'Already Started'),
};
