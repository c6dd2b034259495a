/** What the registry stores for domains and types (AWS shapes, timestamps in epoch ms). */
export type RegistrationStatus = 'REGISTERED' | 'DEPRECATED';

export interface DomainRecord {
  name: string;
  status: RegistrationStatus;
  description?: string;
  retentionDays: string;
  arn: string;
  tags: { key: string; value?: string }[];
}

export interface WorkflowTypeConfig {
  defaultTaskStartToCloseTimeout?: string;
  defaultExecutionStartToCloseTimeout?: string;
  defaultTaskList?: { name: string };
  defaultTaskPriority?: string;
  defaultChildPolicy?: string;
  defaultLambdaRole?: string;
}

export interface ActivityTypeConfig {
  defaultTaskStartToCloseTimeout?: string;
  defaultTaskHeartbeatTimeout?: string;
  defaultTaskList?: { name: string };
  defaultTaskPriority?: string;
  defaultTaskScheduleToStartTimeout?: string;
  defaultTaskScheduleToCloseTimeout?: string;
}

export type TypeKind = 'workflow' | 'activity';

export interface TypeRecord<C = WorkflowTypeConfig | ActivityTypeConfig> {
  kind: TypeKind;
  domain: string;
  name: string;
  version: string;
  status: RegistrationStatus;
  description?: string;
  creationDate: number;
  deprecationDate?: number;
  config: C;
}
