/** A task message: enough for any node to ask the run's owner to start it. */
export interface TaskMessage {
  domain: string;
  workflowId: string;
  runId: string;
  partition: number;
  kind: 'd' | 'a';
  taskList: string;
  scheduledEventId: number;
  /** SWF taskPriority (higher first); absent means 0. */
  priority?: number;
}
