import { Fault } from '../../protocol/faults.js';
import { requestObject } from '../input.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { startExpress } from '../express/start-express.js';
import type { ExpressOutcome } from '../express/express-host.js';
import { readStartRequest } from './start-request.js';

/** AWS bills an express execution's duration in 100 ms steps (at least one), its memory in 64 MB steps. */
const BILLED_DURATION_STEP_MS = 100;
const BILLED_MEMORY_MB = 64;

/** SyncExecutionStatus has no ABORTED (nothing stops an express execution; a node shutting down fails it). */
const syncStatus = (o: ExpressOutcome): 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' => (o.status === 'ABORTED' ? 'FAILED' : o.status);

/**
 * StartSyncExecution: runs an EXPRESS execution and answers when it ends, with its status, output or
 * error and cause, and billingDetails; a STANDARD state machine → StateMachineTypeNotSupported.
 * `includedData: METADATA_ONLY` leaves out input and output.
 *
 * Over HTTP the AWS SDKs send this action (and TestState) to the `sync-` host prefix of the
 * endpoint (`sync-states.<region>.amazonaws.com`): a client pointed at this engine must turn that
 * off, e.g. `new SFNClient({ endpoint: 'http://127.0.0.1:8080', disableHostPrefix: true })` (the JS
 * SDK; boto3 and the aws CLI leave a custom endpoint's host alone), or it connects to `sync-127.0.0.1`.
 */
export async function startSyncExecution(ctx: ServiceContext, input: unknown): Promise<object> {
  let metadataOnly = false;
  const req = await readStartRequest(ctx, input, (r) => {
    metadataOnly = r.str('includedData', { max: 16, oneOf: ['ALL_DATA', 'METADATA_ONLY'] }) === 'METADATA_ONLY';
  });
  if (req.target.stateMachine.type !== 'EXPRESS') {
    throw new Fault('StateMachineTypeNotSupported', 'This operation is not supported by this type of state machine');
  }
  const started = await startExpress(ctx, req);
  const o = await started.done;
  const traceHeader = requestObject(input).traceHeader;
  const ms = o.stopDate - started.startDate;
  return {
    executionArn: started.executionArn, stateMachineArn: started.stateMachineArn, name: started.name,
    startDate: seconds(started.startDate), stopDate: seconds(o.stopDate), status: syncStatus(o),
    ...(o.error !== undefined ? { error: o.error } : {}),
    ...(o.cause !== undefined ? { cause: o.cause } : {}),
    ...(metadataOnly ? { inputDetails: { included: false } } : { input: started.input, inputDetails: { included: true } }),
    ...(o.output !== undefined ? (metadataOnly ? { outputDetails: { included: false } } : { output: o.output, outputDetails: { included: true } }) : {}),
    ...(typeof traceHeader === 'string' ? { traceHeader } : {}),
    billingDetails: {
      billedMemoryUsedInMB: BILLED_MEMORY_MB,
      billedDurationInMilliseconds: Math.max(1, Math.ceil(ms / BILLED_DURATION_STEP_MS)) * BILLED_DURATION_STEP_MS,
    },
  };
}
