import type { WireEvent } from '../sdk/client.js';
import { WorkflowContext } from './context.js';
import type { WorkflowDefinition } from './define.js';
import { decode } from './payload.js';
import { WorkflowRun, type ReplayResult } from './run.js';

/**
 * Runs a workflow's code through a history (a live decision task's, or a recorded one): the
 * decisions the code makes beyond what the history holds, and the first point where code and
 * history disagree, if they do.
 */
export function replayWorkflow(def: WorkflowDefinition, events: WireEvent[], execution?: { workflowId: string; runId: string }): Promise<ReplayResult> {
  const run = new WorkflowRun(events, execution);
  const wf = new WorkflowContext(run, { activityVersion: def.activityVersion ?? def.version });
  const start = async () => {
    let outcome: { value: unknown } | { error: unknown };
    try {
      outcome = { value: await def.fn(wf, decode(run.info.input)) };
    } catch (error) {
      outcome = { error };
    }
    wf.close(WorkflowContext.closeDecision(outcome, wf.cancelRequested));
  };
  return run.replay(start, wf);
}

/**
 * Checks recorded histories against the current code (the replayer): resolves to the first
 * divergence, or undefined when the code makes the same decisions the history recorded. Use it in
 * tests before deploying a changed workflow.
 */
export async function replayHistory(def: WorkflowDefinition, history: WireEvent[] | { events: WireEvent[] }, execution?: { workflowId: string; runId: string }): Promise<ReplayResult> {
  const events = (Array.isArray(history) ? history : history.events).map(normalize);
  return replayWorkflow(def, events, execution);
}

/** Histories saved by the aws CLI or boto3 carry ISO or Date timestamps: seconds, as the wire has them. */
function normalize(e: WireEvent): WireEvent {
  const t = e.eventTimestamp as unknown;
  if (typeof t === 'number') return e;
  const ms = t instanceof Date ? t.getTime() : Date.parse(String(t));
  return { ...e, eventTimestamp: ms / 1000 };
}
