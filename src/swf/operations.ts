import type { BoundOp, OwnerHandlers } from '../engine/owner-ops.js';
import type { PartitionOwner } from './kind/partition-owner.js';
import type { Operation } from '../service/context.js';
import { registerDomain } from './operations/register-domain.js';
import { describeDomain } from './operations/describe-domain.js';
import { listDomains } from './operations/list-domains.js';
import { deprecateDomain, undeprecateDomain } from './operations/domain-status.js';
import { registerActivityType, registerWorkflowType } from './operations/register-type.js';
import { describeActivityType, describeWorkflowType } from './operations/describe-type.js';
import { listActivityTypes, listWorkflowTypes } from './operations/list-types.js';
import {
  deleteActivityType, deleteWorkflowType, deprecateActivityType, deprecateWorkflowType,
  undeprecateActivityType, undeprecateWorkflowType,
} from './type-status.js';
import { startRunOnOwner, startWorkflowExecution } from './operations/start-workflow-execution.js';
import { decisionPageOnOwner, pollForDecisionTask, startDecisionOnOwner } from './operations/poll-for-decision-task.js';
import { completeDecisionOnOwner, respondDecisionTaskCompleted } from './operations/respond-decision-task-completed.js';
import { pollForActivityTask, startActivityOnOwner } from './operations/poll-for-activity-task.js';
import { skipDamagedRun } from '../history/quarantine.js';
import {
  activityResponseOnOwner, recordActivityTaskHeartbeat, respondActivityTaskCanceled,
  respondActivityTaskCompleted, respondActivityTaskFailed,
} from './operations/respond-activity-task.js';
import { describeOnOwner, describeWorkflowExecution } from './operations/describe-workflow-execution.js';
import { getWorkflowExecutionHistory, historyOnOwner } from './operations/get-workflow-execution-history.js';
import { countPendingActivityTasks, countPendingDecisionTasks } from './operations/count-pending-tasks.js';
import { signalOnOwner, signalWorkflowExecution } from './operations/signal-workflow-execution.js';
import { requestCancelOnOwner, requestCancelWorkflowExecution } from './operations/request-cancel-workflow-execution.js';
import { terminateOnOwner, terminateWorkflowExecution } from './operations/terminate-workflow-execution.js';
import { notifyOnOwner } from './notify-run.js';
import { listClosedWorkflowExecutions, listOpenWorkflowExecutions } from './operations/list-workflow-executions.js';
import { countClosedWorkflowExecutions, countOpenWorkflowExecutions } from './operations/count-workflow-executions.js';
import { listTagsForResource, tagResource, untagResource } from './operations/domain-tags.js';

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
  SignalWorkflowExecution: signalWorkflowExecution,
  RequestCancelWorkflowExecution: requestCancelWorkflowExecution,
  TerminateWorkflowExecution: terminateWorkflowExecution,
  ListOpenWorkflowExecutions: listOpenWorkflowExecutions,
  ListClosedWorkflowExecutions: listClosedWorkflowExecutions,
  CountOpenWorkflowExecutions: countOpenWorkflowExecutions,
  CountClosedWorkflowExecutions: countClosedWorkflowExecutions,
  TagResource: tagResource,
  UntagResource: untagResource,
  ListTagsForResource: listTagsForResource,
};

/** Work that runs on the owner of an SWF run's partition, against the SWF execution kind. */
const OWNER_OPS = {
  start: startRunOnOwner,
  startDecision: skipDamagedRun(startDecisionOnOwner),
  decisionPage: decisionPageOnOwner,
  completeDecision: completeDecisionOnOwner,
  startActivity: skipDamagedRun(startActivityOnOwner),
  activityResponse: activityResponseOnOwner,
  describe: describeOnOwner,
  history: historyOnOwner,
  signal: signalOnOwner,
  requestCancel: requestCancelOnOwner,
  terminate: terminateOnOwner,
  notify: notifyOnOwner,
} as const;

type SwfOwnerOps = { [K in keyof typeof OWNER_OPS]: BoundOp<(typeof OWNER_OPS)[K]> };

declare module '../engine/owner-ops.js' {
  // The SWF kind's owner operations, with their payloads and results (Router.call checks both).
  interface OwnerOps extends SwfOwnerOps {}
}

/** The SWF owner operations bound to this node's SWF execution kind, for Router.register. */
export function swfOwnerOps(owner: PartitionOwner): OwnerHandlers {
  const bound: Record<string, (payload: never) => Promise<unknown>> = {};
  for (const [op, fn] of Object.entries(OWNER_OPS)) bound[op] = (payload: never) => (fn as (o: PartitionOwner, p: never) => Promise<unknown>)(owner, payload);
  return bound as OwnerHandlers;
}
