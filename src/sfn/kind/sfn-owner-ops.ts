import type { TaskMessage } from '../../matching/task-message.js';
import type { SfnExecutionRecord } from './execution-records.js';
import type { SfnRedrivePayload } from './sfn-redrive.js';
import type { SfnTaskRef } from './sfn-task-token.js';

// What the Step Functions kind's owner calls carry and answer (served by SfnHost.ownerOps).
export interface SfnStartPayload { record: SfnExecutionRecord }
export interface SfnStartTaskPayload { task: TaskMessage; workerName?: string }
export interface SfnTaskPayload { ref: SfnTaskRef; kind: 'success' | 'failure' | 'heartbeat'; output?: string; error?: string; cause?: string }
export interface SfnStopPayload { executionArn: string; error?: string; cause?: string }

/** The Step Functions kind's owner operations, with their payloads and results (Router.call checks both). */
export interface SfnOwnerOps {
  sfnStart(p: SfnStartPayload): Promise<{ executionArn: string; startDate: number }>;
  sfnStartTask(p: SfnStartTaskPayload): Promise<SfnActivityTask | null>;
  sfnTask(p: SfnTaskPayload): Promise<object>;
  sfnStop(p: SfnStopPayload): Promise<{ stopDate: number }>;
  sfnRedrive(p: SfnRedrivePayload): Promise<{ redriveDate: number }>;
}

declare module '../../engine/owner-ops.js' {
  interface OwnerOps extends SfnOwnerOps {}
}

/** What a started activity task hands its worker. */
export interface SfnActivityTask { taskToken: string; input: string }
