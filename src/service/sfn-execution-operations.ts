import type { Operation } from './context.js';
import { describeExecution } from './sfn-describe-execution.js';
import { getExecutionHistory } from './sfn-execution-history.js';
import { getActivityTask } from './sfn-get-activity-task.js';
import { listExecutions } from './sfn-list-executions.js';
import { sendTaskFailure, sendTaskHeartbeat, sendTaskSuccess } from './sfn-send-task.js';
import { startExecution } from './sfn-start-execution.js';
import { stopExecution } from './sfn-stop-execution.js';

/** Step Functions execution and activity-task actions (spread into SFN_OPERATIONS). */
export const SFN_EXECUTION_OPERATIONS: Readonly<Record<string, Operation>> = {
  StartExecution: startExecution,
  DescribeExecution: describeExecution,
  StopExecution: stopExecution,
  ListExecutions: listExecutions,
  GetExecutionHistory: getExecutionHistory,
  GetActivityTask: getActivityTask,
  SendTaskSuccess: sendTaskSuccess,
  SendTaskFailure: sendTaskFailure,
  SendTaskHeartbeat: sendTaskHeartbeat,
};
