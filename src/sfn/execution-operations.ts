import type { Operation } from '../service/context.js';
import { describeExecution } from './operations/describe-execution.js';
import { getExecutionHistory } from './operations/get-execution-history.js';
import { getActivityTask } from './operations/get-activity-task.js';
import { listExecutions } from './operations/list-executions.js';
import { redriveExecution } from './operations/redrive-execution.js';
import { sendTaskFailure, sendTaskHeartbeat, sendTaskSuccess } from './operations/send-task.js';
import { startExecution } from './operations/start-execution.js';
import { startSyncExecution } from './operations/start-sync-execution.js';
import { stopExecution } from './operations/stop-execution.js';

/** Step Functions execution and activity-task actions (spread into SFN_OPERATIONS). */
export const SFN_EXECUTION_OPERATIONS: Readonly<Record<string, Operation>> = {
  StartExecution: startExecution,
  StartSyncExecution: startSyncExecution,
  DescribeExecution: describeExecution,
  StopExecution: stopExecution,
  RedriveExecution: redriveExecution,
  ListExecutions: listExecutions,
  GetExecutionHistory: getExecutionHistory,
  GetActivityTask: getActivityTask,
  SendTaskSuccess: sendTaskSuccess,
  SendTaskFailure: sendTaskFailure,
  SendTaskHeartbeat: sendTaskHeartbeat,
};
