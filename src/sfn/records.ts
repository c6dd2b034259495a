import { kvToken } from '../nats/subjects.js';
import type { SfnLoggingConfiguration } from './express/logging-config.js';

/** A state machine's type (AWS: STANDARD keeps history, EXPRESS runs in memory). */
export type StateMachineType = 'STANDARD' | 'EXPRESS';

/** A Step Functions activity as the registry stores it. */
export interface ActivityRecord {
  name: string;
  arn: string;
  /** epoch ms */
  creationDate: number;
  tags?: SfnTag[];
}

/** One tag as Step Functions carries it. */
export interface SfnTag { key: string; value?: string }

/** A Step Functions state machine as the registry stores it (the definition as the caller sent it). */
export interface StateMachineRecord {
  name: string;
  arn: string;
  definition: string;
  roleArn: string;
  /** Fixed at create: UpdateStateMachine cannot change it. */
  type: StateMachineType;
  /** Absent: logging OFF (records from before logging was kept, and machines created without it). */
  loggingConfiguration?: SfnLoggingConfiguration;
  /** epoch ms */
  creationDate: number;
  /** epoch ms of the last UpdateStateMachine */
  updateDate?: number;
  /** changes with every update; executions record the revision they started with */
  revisionId: string;
  status: 'ACTIVE' | 'DELETING';
  tags?: SfnTag[];
  /** The highest version number ever published (numbers are never used twice, even after a delete). */
  lastVersion?: number;
}

/** A published version: an immutable copy of a state machine's revision, `<stateMachineArn>:<version>`. */
export interface StateMachineVersionRecord {
  stateMachineName: string;
  arn: string;
  version: number;
  definition: string;
  roleArn: string;
  type: StateMachineType;
  revisionId: string;
  description?: string;
  /** epoch ms */
  creationDate: number;
}

/** One route of an alias: a version ARN and its share (0–100) of the executions started through the alias. */
export interface AliasRoute { stateMachineVersionArn: string; weight: number }

/** An alias, `<stateMachineArn>:<name>`: one or two versions with weights summing to 100. */
export interface StateMachineAliasRecord {
  stateMachineName: string;
  name: string;
  arn: string;
  description?: string;
  routingConfiguration: AliasRoute[];
  /** epoch ms */
  creationDate: number;
  updateDate?: number;
}

/** Registry KV keys (bucket `af_registry`) of Step Functions resources; the plural forms are list prefixes. */
export const sfnKeys = {
  activity: (name: string): string => `sa.${kvToken(name)}`,
  stateMachine: (name: string): string => `sm.${kvToken(name)}`,
  /** Versions of one state machine, zero-padded so the keys sort by number. */
  version: (stateMachine: string, n: number): string => `smv.${kvToken(stateMachine)}.${String(n).padStart(10, '0')}`,
  alias: (stateMachine: string, alias: string): string => `sma.${kvToken(stateMachine)}.${kvToken(alias)}`,
  versionsOf: (stateMachine: string): string => `smv.${kvToken(stateMachine)}`,
  aliasesOf: (stateMachine: string): string => `sma.${kvToken(stateMachine)}`,
  activities: 'sa',
  stateMachines: 'sm',
} as const;
