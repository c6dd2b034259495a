import {
  CreateActivityCommand, GetActivityTaskCommand, SendTaskFailureCommand, SendTaskSuccessCommand, StartExecutionCommand, StopExecutionCommand,
  type HistoryEvent, type SFNClient,
} from '@aws-sdk/client-sfn';
import { createMachine, freshName, fullHistory, waitClosed } from './sfn-http.js';
import { until } from './until.js';

/** How the test's worker answers one activity task (in the order they are handed out). */
export type ActivityAnswer = { output: string } | { error: string; cause: string };

/** An expected history event: every member but the timestamp. */
export type ExpectedEvent = { id: number; type: string; previousEventId: number } & Record<string, unknown>;

/**
 * One state machine with the history AWS records for it. In `events` and `definition`, the text
 * `{activity}` stands for the case's activity ARN, `{execution}` / `{executionName}` for the
 * execution's ARN and name, `{stateMachine}` / `{stateMachineName}` for the state machine's.
 */
export interface HistoryCase {
  name: string;
  /** Where the expected history comes from (an AWS recording, the AWS docs, or the rules they show). */
  source: string;
  definition: object;
  input: string;
  /** The case has a Task on `{activity}`: a worker named `worker-1` answers its tasks in turn. */
  answers?: ActivityAnswer[];
  /** StopExecution once the history holds this many events (and then the execution is ABORTED). */
  stopAt?: number;
  events: ExpectedEvent[];
}

export type Names = Record<'activity' | 'execution' | 'executionName' | 'stateMachine' | 'stateMachineName', string>;

/** `v` with every `{name}` of `names` in its strings replaced (objects and arrays walked). */
export function fill<T>(v: T, names: Names): T {
  if (typeof v === 'string') return v.replace(/\{(activity|execution|executionName|stateMachine|stateMachineName)\}/g, (_m, k: keyof Names) => names[k]) as T;
  if (Array.isArray(v)) return v.map((x) => fill(x, names)) as T;
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, names)])) as T;
  return v;
}

/** A history event as the SDK gives it, without its timestamp (the one member a run cannot fix). */
export function withoutTimestamp(e: HistoryEvent): Record<string, unknown> {
  const { timestamp: _t, ...rest } = e;
  return rest;
}

/** Runs a case through the SDK against a real engine; returns the names used and the history without timestamps. */
export async function runHistoryCase(sfn: SFNClient, c: HistoryCase): Promise<{ names: Names; events: Record<string, unknown>[] }> {
  const activity = c.answers ? (await sfn.send(new CreateActivityCommand({ name: freshName('act') }))).activityArn! : 'no-activity';
  const stateMachineName = freshName('sm');
  const partial = { activity, executionName: freshName('exec'), stateMachineName, execution: '', stateMachine: '' };
  const stateMachine = await createMachine(sfn, fill(c.definition, partial as Names), stateMachineName);
  const execution = stateMachine.replace(':stateMachine:', ':execution:') + `:${partial.executionName}`;
  const names: Names = { ...partial, stateMachine, execution };
  const started = await sfn.send(new StartExecutionCommand({ stateMachineArn: stateMachine, name: names.executionName, input: c.input }));
  if (started.executionArn !== execution) throw new Error(`unexpected execution ARN ${started.executionArn}`);
  for (const a of c.answers ?? []) {
    const t = await sfn.send(new GetActivityTaskCommand({ activityArn: activity, workerName: 'worker-1' }));
    if (!t.taskToken) throw new Error(`${c.name}: no activity task came`);
    if ('output' in a) await sfn.send(new SendTaskSuccessCommand({ taskToken: t.taskToken, output: a.output }));
    else await sfn.send(new SendTaskFailureCommand({ taskToken: t.taskToken, error: a.error, cause: a.cause }));
  }
  if (c.stopAt !== undefined) {
    await until(async () => (await fullHistory(sfn, execution)).length >= c.stopAt!, { timeoutMs: 15_000, intervalMs: 50, message: `${c.name}: ${c.stopAt} events` });
    await sfn.send(new StopExecutionCommand({ executionArn: execution }));
  }
  await waitClosed(sfn, execution);
  return { names, events: (await fullHistory(sfn, execution)).map(withoutTimestamp) };
}
