import type { Operation } from './context.js';

/**
 * Step Functions actions (`AWSStepFunctions.<Action>` over HTTP), by their AWS name. Empty until the
 * activity surface lands: every call is answered with UnknownOperationException.
 */
export const SFN_OPERATIONS: Readonly<Record<string, Operation>> = {};
