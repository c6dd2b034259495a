import { ActivityWorker, type ActivityHandler } from '../sdk/activity-worker.js';
import { ignore, type ActorFlowClient } from '../sdk/client.js';
import { Decider, type DecisionResult, type DecisionTask } from '../sdk/decider.js';
import { typeKey, type ActivityDefinition, type WorkflowDefinition } from './define.js';
import { swfSeconds, type Duration } from './duration.js';
import type { Divergence } from './errors.js';
import { FRAMEWORK_MARKER_PREFIX } from './history-index.js';
import { decode, encode } from './payload.js';
import { replayWorkflow } from './replay.js';

/** What a worker does with a run whose code no longer matches its history. */
export type NondeterminismPolicy =
  /** Answer with only a marker saying where they disagree; the run waits for fixed code (the next event replays again). */
  | 'block'
  /** Fail the run (FailWorkflowExecution, reason ActorFlow.Nondeterminism). */
  | 'fail';

export const NONDETERMINISM_MARKER = `${FRAMEWORK_MARKER_PREFIX}Nondeterminism`;

export interface WorkflowWorkerOptions {
  domain: string;
  /** The task list of the workflows' decision tasks. */
  taskList: string;
  workflows?: WorkflowDefinition[];
  activities?: ActivityDefinition[];
  /** The task list the activities are polled on (default: taskList). */
  activityTaskList?: string;
  identity?: string;
  /** Decision tasks and activity tasks handled at once (default 1 and 4). */
  concurrency?: number;
  activityConcurrency?: number;
  pollTimeoutMs?: number;
  onNondeterminism?: NondeterminismPolicy;
  /** Called after the engine accepted a decision task's answer (e.g. for metrics, or to see runs close). */
  onDecided?: (task: DecisionTask, result: DecisionResult) => void;
  /** Where a divergence and other worker errors are reported (default: console.warn / console.error). */
  log?: { warn(msg: string, detail?: unknown): void; error(msg: string, detail?: unknown): void };
}

export interface WorkflowWorker {
  stop(): Promise<void>;
}

/** The decisions for one decision task: the code replayed through the task's history. */
export async function decideTask(defs: Map<string, WorkflowDefinition>, task: DecisionTask, policy: NondeterminismPolicy, log: NonNullable<WorkflowWorkerOptions['log']>): Promise<DecisionResult> {
  const def = defs.get(typeKey(task.workflowType));
  if (!def) throw new Error(`no workflow ${task.workflowType.name} version ${task.workflowType.version} on this worker`);
  const result = await replayWorkflow(def, task.events, task.workflowExecution);
  if (!result.divergence) return { decisions: result.decisions };
  const d = result.divergence;
  log.warn(`workflow ${task.workflowExecution.workflowId} (${task.workflowExecution.runId}) no longer matches its history: ${d.message}`, d);
  return { decisions: [nondeterminismDecision(d, policy)] };
}

function nondeterminismDecision(d: Divergence, policy: NondeterminismPolicy): object {
  const details = JSON.stringify(d).slice(0, 32768);
  return policy === 'fail'
    ? { decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: NONDETERMINISM_MARKER, details } }
    : { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: NONDETERMINISM_MARKER, details } };
}

/** An activity definition as the SDK's ActivityWorker handler: input decoded, result encoded. */
function handlerOf(def: ActivityDefinition): ActivityHandler {
  return async (task, ctx) => encode(await def.fn(decode(task.input), {
    heartbeat: (details) => ctx.heartbeat(encode(details)),
    get cancelRequested() { return ctx.cancelRequested; },
    task,
  }));
}

/**
 * Serves workflows as code and activities as functions on one domain: a decider whose decisions
 * come from replaying each task's history through the workflow's code, and an activity worker.
 */
export function startWorkflowWorker(client: ActorFlowClient, o: WorkflowWorkerOptions): WorkflowWorker {
  const log = o.log ?? { warn: (m: string) => console.warn(m), error: (m: string, e?: unknown) => console.error(m, e) };
  const defs = new Map((o.workflows ?? []).map((w) => [typeKey(w), w]));
  const policy = o.onNondeterminism ?? 'block';
  const onError = (e: unknown) => log.error('workflow worker', e);
  const decider = defs.size
    ? new Decider(client, { domain: o.domain, taskList: o.taskList, identity: o.identity, concurrency: o.concurrency, pollTimeoutMs: o.pollTimeoutMs, onError, onResponded: o.onDecided },
      (task) => decideTask(defs, task, policy, log)).start()
    : undefined;
  const activities = o.activities ?? [];
  const worker = activities.length
    ? new ActivityWorker(client, {
      domain: o.domain, taskList: o.activityTaskList ?? o.taskList, identity: o.identity, concurrency: o.activityConcurrency ?? 4, pollTimeoutMs: o.pollTimeoutMs, onError,
    }, Object.fromEntries(activities.map((a) => [a.name, handlerOf(a)]))).start()
    : undefined;
  return { stop: async () => { await Promise.all([decider?.stop(), worker?.stop()]); } };
}

const seconds = (d: Duration | 'NONE' | undefined) => (d === undefined ? undefined : d === 'NONE' ? 'NONE' : swfSeconds(d));

/** Registers the workflow and activity types with their defaults (types already registered are left as they are). */
export async function registerTypes(client: ActorFlowClient, domain: string, defs: { workflows?: WorkflowDefinition[]; activities?: ActivityDefinition[] }): Promise<void> {
  for (const w of defs.workflows ?? []) {
    await client.call('RegisterWorkflowType', {
      domain, name: w.name, version: w.version, description: w.description, defaultTaskList: { name: w.taskList },
      defaultChildPolicy: w.childPolicy ?? 'TERMINATE',
      defaultExecutionStartToCloseTimeout: seconds(w.executionStartToCloseTimeout ?? '1d'),
      defaultTaskStartToCloseTimeout: seconds(w.taskStartToCloseTimeout ?? '30s'),
    }).catch(ignore('TypeAlreadyExistsFault'));
  }
  for (const a of defs.activities ?? []) {
    await client.call('RegisterActivityType', {
      domain, name: a.name, version: a.version, description: a.description,
      ...(a.taskList ? { defaultTaskList: { name: a.taskList } } : {}),
      defaultTaskScheduleToStartTimeout: seconds(a.scheduleToStartTimeout ?? 'NONE'), defaultTaskStartToCloseTimeout: seconds(a.startToCloseTimeout ?? '5m'),
      defaultTaskScheduleToCloseTimeout: seconds(a.scheduleToCloseTimeout ?? 'NONE'), defaultTaskHeartbeatTimeout: seconds(a.heartbeatTimeout ?? 'NONE'),
    }).catch(ignore('TypeAlreadyExistsFault'));
  }
}
