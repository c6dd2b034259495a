/** Fault names exactly as the AWS SDK models spell them (SWF and Step Functions). */
export type FaultName =
  | 'ValidationException' | 'UnknownResourceFault' | 'DomainAlreadyExistsFault' | 'DomainDeprecatedFault'
  | 'TypeAlreadyExistsFault' | 'TypeDeprecatedFault' | 'TypeNotDeprecatedFault'
  | 'WorkflowExecutionAlreadyStartedFault' | 'DefaultUndefinedFault' | 'LimitExceededFault'
  | 'TooManyTagsFault' | 'OperationNotPermittedFault' | 'ThrottlingException' | 'SerializationException'
  | 'UnknownOperationException' | 'InternalFailure' | 'AccessDeniedException';

/** A wire fault: created by the service layer, turned into a wire error only by the transports. */
export class Fault extends Error {
  override readonly name: FaultName;
  constructor(name: FaultName, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = name;
  }
}

export function isFault(e: unknown, name?: FaultName): e is Fault {
  return e instanceof Fault && (name === undefined || e.name === name);
}

export const fault = {
  validation: (message: string) => new Fault('ValidationException', message),
  unknown: (message: string) => new Fault('UnknownResourceFault', message),
  unknownDomain: (name: string) => new Fault('UnknownResourceFault', `Unknown domain: ${name}`),
  unknownExecution: (workflowId: string, runId?: string) =>
    new Fault('UnknownResourceFault', `Unknown execution: WorkflowExecution=[workflowId=${workflowId}, runId=${runId ?? ''}]`),
};
