import type { Operation } from '../service/context.js';
import { createActivity, deleteActivity, describeActivity, listActivities } from './operations/activities.js';
import {
  createStateMachine, deleteStateMachine, describeStateMachine, listStateMachines, updateStateMachine,
} from './operations/state-machines.js';
import { SFN_EXECUTION_OPERATIONS } from './execution-operations.js';

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
  ...SFN_EXECUTION_OPERATIONS,
};

/** One table from several; a name served by two of them is a programming error, refused at start-up. */
export function mergeOperations(...tables: Readonly<Record<string, Operation>>[]): Readonly<Record<string, Operation>> {
  const out: Record<string, Operation> = {};
  for (const t of tables) {
    for (const [name, op] of Object.entries(t)) {
      if (Object.hasOwn(out, name)) throw new Error(`operation ${name} is defined twice: every action name must be unique across SWF and Step Functions`);
      out[name] = op;
    }
  }
  return out;
}
