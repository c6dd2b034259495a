import { kvToken } from '../nats/subjects.js';

/** A Step Functions activity as the registry stores it. */
export interface ActivityRecord {
  name: string;
  arn: string;
  /** epoch ms */
  creationDate: number;
}

/** A Step Functions state machine as the registry stores it (the definition as the caller sent it). */
export interface StateMachineRecord {
  name: string;
  arn: string;
  definition: string;
  roleArn: string;
  type: 'STANDARD';
  /** epoch ms */
  creationDate: number;
  /** epoch ms of the last UpdateStateMachine */
  updateDate?: number;
  /** changes with every update; executions record the revision they started with */
  revisionId: string;
  status: 'ACTIVE' | 'DELETING';
}

/** Registry KV keys (bucket `af_registry`) of Step Functions resources; the plural forms are list prefixes. */
export const sfnKeys = {
  activity: (name: string): string => `sa.${kvToken(name)}`,
  stateMachine: (name: string): string => `sm.${kvToken(name)}`,
  activities: 'sa',
  stateMachines: 'sm',
} as const;
