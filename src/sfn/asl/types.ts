/**
 * The Amazon States Language (JSONPath flavour) as ActorFlow reads it: the shapes a validated
 * definition has. Validation (validate-definition.ts) guarantees these shapes; everything else
 * trusts them.
 */
export type StateType = 'Task' | 'Pass' | 'Choice' | 'Wait' | 'Succeed' | 'Fail' | 'Parallel' | 'Map';

export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: 'FULL' | 'NONE';
}

export interface Catcher {
  ErrorEquals: string[];
  Next: string;
  ResultPath?: string | null;
}

/** A Choice rule: a comparison (Variable + one operator), a boolean combination, or a top-level rule with Next. */
export interface ChoiceRule {
  Variable?: string;
  And?: ChoiceRule[];
  Or?: ChoiceRule[];
  Not?: ChoiceRule;
  Next?: string;
  /** Exactly one operator member (StringEquals, NumericLessThanPath, IsPresent, …). */
  [operator: string]: unknown;
}

export interface StateCommon {
  Type: StateType;
  Comment?: string;
  Next?: string;
  End?: boolean;
  InputPath?: string | null;
  OutputPath?: string | null;
}

export interface TaskState extends StateCommon {
  Type: 'Task';
  Resource: string;
  Parameters?: unknown;
  ResultSelector?: unknown;
  ResultPath?: string | null;
  TimeoutSeconds?: number;
  TimeoutSecondsPath?: string;
  HeartbeatSeconds?: number;
  HeartbeatSecondsPath?: string;
  Retry?: Retrier[];
  Catch?: Catcher[];
}

export interface PassState extends StateCommon {
  Type: 'Pass';
  Result?: unknown;
  Parameters?: unknown;
  ResultPath?: string | null;
}

export interface ChoiceState extends StateCommon {
  Type: 'Choice';
  Choices: ChoiceRule[];
  Default?: string;
}

export interface WaitState extends StateCommon {
  Type: 'Wait';
  Seconds?: number;
  Timestamp?: string;
  SecondsPath?: string;
  TimestampPath?: string;
}

export interface SucceedState extends StateCommon { Type: 'Succeed' }

export interface FailState extends StateCommon {
  Type: 'Fail';
  Error?: string;
  Cause?: string;
  ErrorPath?: string;
  CausePath?: string;
}

/** StartAt + States: the top level, a Parallel branch, a Map's ItemProcessor/Iterator. */
export interface StateGraph {
  StartAt: string;
  States: Record<string, State>;
  Comment?: string;
}

export interface ParallelState extends StateCommon {
  Type: 'Parallel';
  Branches: StateGraph[];
  Parameters?: unknown;
  ResultSelector?: unknown;
  ResultPath?: string | null;
  Retry?: Retrier[];
  Catch?: Catcher[];
}

export interface MapState extends StateCommon {
  Type: 'Map';
  /** ItemProcessor, or the legacy Iterator (validation copies Iterator into ItemProcessor). */
  ItemProcessor: StateGraph & { ProcessorConfig?: { Mode?: 'INLINE' } };
  ItemsPath?: string;
  /** ItemSelector, or the legacy Parameters (validation copies Parameters into ItemSelector). */
  ItemSelector?: unknown;
  MaxConcurrency?: number;
  MaxConcurrencyPath?: string;
  ResultSelector?: unknown;
  ResultPath?: string | null;
  Retry?: Retrier[];
  Catch?: Catcher[];
}

export type State = TaskState | PassState | ChoiceState | WaitState | SucceedState | FailState | ParallelState | MapState;

export interface AslDefinition extends StateGraph {
  Version?: string;
  TimeoutSeconds?: number;
}

/**
 * The context object (`$$`) as the States Language defines it (times as ISO-8601 strings).
 * `Task.Token` is absent for activity tasks; `Map.Item` exists inside Map iterations only.
 */
export interface ContextObject {
  /** In AWS's order: Id, Input, StartTime, Name, RoleArn, RedriveCount. */
  Execution: { Id: string; Input: unknown; StartTime: string; Name: string; RoleArn: string; RedriveCount: number };
  /** AWS's `$$.State` has Name and EnteredTime only (no RetryCount). */
  State: { Name: string; EnteredTime: string };
  StateMachine: { Id: string; Name: string };
  Task?: { Token: string };
  Map?: { Item: { Index: number; Value: unknown } };
}
