import type { Operation } from '../service/context.js';
import { createActivity, deleteActivity, describeActivity, listActivities } from './operations/activities.js';
import {
  createStateMachine, deleteStateMachine, describeStateMachine, listStateMachines, updateStateMachine,
} from './operations/state-machines.js';
import { deleteStateMachineVersion, listStateMachineVersions, publishStateMachineVersion } from './operations/versions.js';
import {
  createStateMachineAlias, deleteStateMachineAlias, describeStateMachineAlias, listStateMachineAliases, updateStateMachineAlias,
} from './operations/aliases.js';
import { listTagsForResource, tagResource, untagResource } from './operations/tags.js';
import { validateStateMachineDefinition } from './operations/validate.js';
import { describeStateMachineForExecution } from './operations/describe-execution.js';
import { testState } from './operations/test-state.js';
import { SFN_EXECUTION_OPERATIONS } from './execution-operations.js';
import { describeMapRun, listMapRuns, updateMapRun } from './operations/map-runs.js';

/**
 * Step Functions actions by their AWS name: `AWSStepFunctions.<Action>` over HTTP and, merged with
 * the SWF table, `<prefix>.api.<Action>` over NATS (see mergeOperations).
 */
export const SFN_OPERATIONS: Readonly<Record<string, Operation>> = {
  CreateActivity: createActivity,
  DescribeActivity: describeActivity,
  ListActivities: listActivities,
  DeleteActivity: deleteActivity,
  CreateStateMachine: createStateMachine,
  DescribeStateMachine: describeStateMachine,
  ListStateMachines: listStateMachines,
  UpdateStateMachine: updateStateMachine,
  DeleteStateMachine: deleteStateMachine,
  PublishStateMachineVersion: publishStateMachineVersion,
  ListStateMachineVersions: listStateMachineVersions,
  DeleteStateMachineVersion: deleteStateMachineVersion,
  CreateStateMachineAlias: createStateMachineAlias,
  DescribeStateMachineAlias: describeStateMachineAlias,
  UpdateStateMachineAlias: updateStateMachineAlias,
  DeleteStateMachineAlias: deleteStateMachineAlias,
  ListStateMachineAliases: listStateMachineAliases,
  TagResource: tagResource,
  UntagResource: untagResource,
  ListTagsForResource: listTagsForResource,
  ValidateStateMachineDefinition: validateStateMachineDefinition,
  DescribeStateMachineForExecution: describeStateMachineForExecution,
  DescribeMapRun: describeMapRun,
  ListMapRuns: listMapRuns,
  UpdateMapRun: updateMapRun,
  TestState: testState,
  ...SFN_EXECUTION_OPERATIONS,
};

/** Actions both services define, told apart by the service their `resourceArn` names. */
const BY_RESOURCE_ARN = new Set(['TagResource', 'UntagResource', 'ListTagsForResource']);

/** True for a Step Functions ARN (`arn:<partition>:states:…`). */
const namesStates = (input: unknown): boolean => {
  const arn = (input as { resourceArn?: unknown } | null)?.resourceArn;
  return typeof arn === 'string' && /^arn:[^:]*:states:/.test(arn);
};

/**
 * One table from several; a name served by two of them is a programming error, refused at start-up,
 * except the tag actions both services define: the later table (Step Functions) answers a request
 * whose resourceArn is a `states` ARN, the earlier one (SWF) every other.
 */
export function mergeOperations(...tables: Readonly<Record<string, Operation>>[]): Readonly<Record<string, Operation>> {
  const out: Record<string, Operation> = {};
  for (const t of tables) {
    for (const [name, op] of Object.entries(t)) {
      if (Object.hasOwn(out, name)) {
        if (!BY_RESOURCE_ARN.has(name)) throw new Error(`operation ${name} is defined twice: every action name must be unique across SWF and Step Functions`);
        const earlier = out[name]!;
        out[name] = (ctx, input, signal) => (namesStates(input) ? op : earlier)(ctx, input, signal);
        continue;
      }
      out[name] = op;
    }
  }
  return out;
}
