/**
 * The Amazon States Language (JSONPath and JSONata) as ActorFlow reads it: the shapes a validated
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

export type QueryLanguage = 'JSONPath' | 'JSONata';

/**
 * Workflow variables a state (or a Choice rule, or a catcher) assigns: name → value. JSONata: values
 * may hold `{% … %}`; JSONPath: `"name.$"` members hold paths or intrinsics, as in Parameters.
 */
export type Assign = Record<string, unknown>;

export interface Catcher {
  ErrorEquals: string[];
  Next: string;
  ResultPath?: string | null;
  /** JSONata: the state's output when this catcher takes the error (default `$states.errorOutput`). */
  Output?: unknown;
  Assign?: Assign;
}

/** A Choice rule: a comparison (Variable + one operator), a boolean combination, or a top-level rule with Next. */
export interface ChoiceRule {
  Variable?: string;
  And?: ChoiceRule[];
  Or?: ChoiceRule[];
  Not?: ChoiceRule;
  Next?: string;
  /** JSONata: a `{% … %}` expression (or a boolean) in place of Variable and an operator. */
  Condition?: unknown;
  /** Top-level rules: what the state assigns and outputs when this rule is taken. */
  Assign?: Assign;
  Output?: unknown;
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
  /** Set on every state once compiled (the state's own, else the definition's, else JSONPath). */
  QueryLanguage?: QueryLanguage;
  /** Every type but Succeed and Fail. */
  Assign?: Assign;
  /** JSONata: the state's output (default: the result, or the input where there is none). */
  Output?: unknown;
  /** JSONata, Task and Parallel: the task's (branches') input (default `$states.input`). */
  Arguments?: unknown;
}

export interface TaskState extends StateCommon {
  Type: 'Task';
  Resource: string;
  Parameters?: unknown;
  ResultSelector?: unknown;
  ResultPath?: string | null;
  /** JSONata: a number or an expression. */
  TimeoutSeconds?: number | string;
  TimeoutSecondsPath?: string;
  HeartbeatSeconds?: number | string;
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
  /** JSONata: a number or an expression. */
  Seconds?: number | string;
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
  ItemProcessor: StateGraph & { ProcessorConfig?: { Mode?: 'INLINE' | 'DISTRIBUTED'; ExecutionType?: 'STANDARD' | 'EXPRESS' } };
  /** Distributed mode only (see compile/distributed-map.ts). */
  Label?: string;
  ToleratedFailurePercentage?: number | string;
  ToleratedFailurePercentagePath?: string;
  ToleratedFailureCount?: number | string;
  ToleratedFailureCountPath?: string;
  ItemBatcher?: { MaxItemsPerBatch?: number | string; MaxItemsPerBatchPath?: string; MaxInputBytesPerBatch?: number | string; MaxInputBytesPerBatchPath?: string; BatchInput?: unknown };
  ItemsPath?: string;
  /** JSONata: the items (an array, or an expression giving one; default `$states.input`). */
  Items?: unknown;
  /** ItemSelector, or the legacy Parameters (validation copies Parameters into ItemSelector). */
  ItemSelector?: unknown;
  /** JSONata: a number or an expression. */
  MaxConcurrency?: number | string;
  MaxConcurrencyPath?: string;
  ResultSelector?: unknown;
  ResultPath?: string | null;
  Retry?: Retrier[];
  Catch?: Catcher[];
}

export type State = TaskState | PassState | ChoiceState | WaitState | SucceedState | FailState | ParallelState | MapState;

export interface AslDefinition extends StateGraph {
  Version?: string;
  QueryLanguage?: QueryLanguage;
  TimeoutSeconds?: number;
}

/**
 * The context object (`$$`) as the States Language defines it (times as ISO-8601 strings).
 * `Task.Token` is absent for activity tasks; `Map.Item` exists inside Map iterations only.
 */
export interface ContextObject {
  /** In AWS's order: Id, Input, StartTime, Name, RoleArn, RedriveCount (and RedriveTime once redriven). */
  Execution: { Id: string; Input: unknown; StartTime: string; Name: string; RoleArn: string; RedriveCount: number; RedriveTime?: string };
  /** AWS's `$$.State` has Name and EnteredTime only (no RetryCount). */
  State: { Name: string; EnteredTime: string };
  StateMachine: { Id: string; Name: string };
  Task?: { Token: string };
  Map?: { Item: { Index: number; Value: unknown } };
}
