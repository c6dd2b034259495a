import type { OwnerOp } from '../runtime/router.js';
import type { Operation } from './context.js';
import { registerDomain } from './register-domain.js';
import { describeDomain } from './describe-domain.js';
import { listDomains } from './list-domains.js';
import { deprecateDomain, undeprecateDomain } from './domain-status.js';
import { registerActivityType, registerWorkflowType } from './register-type.js';
import { describeActivityType, describeWorkflowType } from './describe-type.js';
import { listActivityTypes, listWorkflowTypes } from './list-types.js';
import {
  deleteActivityType, deleteWorkflowType, deprecateActivityType, deprecateWorkflowType,
  undeprecateActivityType, undeprecateWorkflowType,
} from './type-status.js';
import { startRunOnOwner, startWorkflowExecution } from './start-workflow-execution.js';
import { decisionPageOnOwner, pollForDecisionTask, startDecisionOnOwner } from './poll-for-decision-task.js';
import { completeDecisionOnOwner, respondDecisionTaskCompleted } from './respond-decision-task-completed.js';
import { pollForActivityTask, startActivityOnOwner } from './poll-for-activity-task.js';
import {
  activityResponseOnOwner, recordActivityTaskHeartbeat, respondActivityTaskCanceled,
  respondActivityTaskCompleted, respondActivityTaskFailed,
} from './respond-activity-task.js';
import { describeOnOwner, describeWorkflowExecution } from './describe-workflow-execution.js';
import { getWorkflowExecutionHistory, historyOnOwner } from './get-workflow-execution-history.js';
import { countPendingActivityTasks, countPendingDecisionTasks } from './count-pending-tasks.js';

/** Every API action, by its AWS name; both transports dispatch through this table. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  RegisterDomain: registerDomain,
  DescribeDomain: describeDomain,
  ListDomains: listDomains,
  DeprecateDomain: deprecateDomain,
  UndeprecateDomain: undeprecateDomain,
  RegisterWorkflowType: registerWorkflowType,
  DescribeWorkflowType: describeWorkflowType,
  ListWorkflowTypes: listWorkflowTypes,
  DeprecateWorkflowType: deprecateWorkflowType,
  UndeprecateWorkflowType: undeprecateWorkflowType,
  DeleteWorkflowType: deleteWorkflowType,
  RegisterActivityType: registerActivityType,
  DescribeActivityType: describeActivityType,
  ListActivityTypes: listActivityTypes,
  DeprecateActivityType: deprecateActivityType,
  UndeprecateActivityType: undeprecateActivityType,
  DeleteActivityType: deleteActivityType,
  StartWorkflowExecution: startWorkflowExecution,
  PollForDecisionTask: pollForDecisionTask,
  RespondDecisionTaskCompleted: respondDecisionTaskCompleted,
  PollForActivityTask: pollForActivityTask,
  RecordActivityTaskHeartbeat: recordActivityTaskHeartbeat,
  RespondActivityTaskCompleted: respondActivityTaskCompleted,
  RespondActivityTaskFailed: respondActivityTaskFailed,
  RespondActivityTaskCanceled: respondActivityTaskCanceled,
  DescribeWorkflowExecution: describeWorkflowExecution,
  GetWorkflowExecutionHistory: getWorkflowExecutionHistory,
  CountPendingDecisionTasks: countPendingDecisionTasks,
  CountPendingActivityTasks: countPendingActivityTasks,
};

/** Work that runs on the owner of an execution's partition. */
export const OWNER_OPS: Readonly<Record<string, OwnerOp>> = {
  start: startRunOnOwner,
  startDecision: startDecisionOnOwner,
  decisionPage: decisionPageOnOwner,
  completeDecision: completeDecisionOnOwner,
  startActivity: startActivityOnOwner,
  activityResponse: activityResponseOnOwner,
  describe: describeOnOwner,
  history: historyOnOwner,
};
