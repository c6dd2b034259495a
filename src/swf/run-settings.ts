import type { WorkflowTypeConfig } from '../registry/records.js';

/** The settings of a run that come from the call (or decision) or else from the workflow type. */
export interface RunSettings {
  taskList: { name: string };
  executionStartToCloseTimeout: string;
  taskStartToCloseTimeout: string;
  childPolicy: string;
  taskPriority: string;
  lambdaRole?: string;
}

type Given = Partial<Record<keyof RunSettings, unknown>>;

/** The order SWF checks them in, with the decision-failure cause of each. */
const REQUIRED = [
  ['taskList', 'DEFAULT_TASK_LIST_UNDEFINED'],
  ['executionStartToCloseTimeout', 'DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED'],
  ['taskStartToCloseTimeout', 'DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED'],
  ['childPolicy', 'DEFAULT_CHILD_POLICY_UNDEFINED'],
] as const;

/**
 * Resolves a new run's settings: the value given wins, else the workflow type's default. Returns
 * the first missing field with its `*_UNDEFINED` cause when neither exists.
 */
export function resolveRunSettings(given: Given, d: WorkflowTypeConfig):
  { settings: RunSettings } | { missing: (typeof REQUIRED)[number][0]; cause: string } {
  const settings = {
    taskList: given.taskList ?? d.defaultTaskList,
    executionStartToCloseTimeout: given.executionStartToCloseTimeout ?? d.defaultExecutionStartToCloseTimeout,
    taskStartToCloseTimeout: given.taskStartToCloseTimeout ?? d.defaultTaskStartToCloseTimeout,
    childPolicy: given.childPolicy ?? d.defaultChildPolicy,
    taskPriority: given.taskPriority ?? d.defaultTaskPriority ?? '0',
    lambdaRole: given.lambdaRole ?? d.defaultLambdaRole,
  } as RunSettings;
  for (const [field, cause] of REQUIRED) if (settings[field] === undefined) return { missing: field, cause };
  return { settings };
}
