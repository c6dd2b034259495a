import type { CloseStatus, ExecutionState } from '../../machines/swf/execution-state.js';
import type { Subjects } from '../nats/subjects.js';
import type { RunKey } from './kind/execution.js';

interface Execution { workflowId: string; runId: string }

/**
 * One execution as the visibility queries see it: the executionInfo shape of
 * DescribeWorkflowExecution, timestamps in epoch ms, kept as the only message on
 * `af.vis.<domain>.<runId>`.
 */
export interface VisibilityRecord {
  domain: string;
  execution: Execution;
  workflowType: { name: string; version: string };
  startTimestamp: number;
  closeTimestamp?: number;
  executionStatus: 'OPEN' | 'CLOSED';
  closeStatus?: CloseStatus;
  tagList?: string[];
  cancelRequested: boolean;
  parent?: Execution;
  /** The last history event this record reflects: of two records of a run, the higher one wins. */
  version: number;
}

/** The record of a run, from the fold of its history. */
export function recordOf(key: RunKey, s: ExecutionState): VisibilityRecord {
  const rec: VisibilityRecord = {
    domain: key.domain,
    execution: { workflowId: key.workflowId, runId: key.runId },
    workflowType: s.started.workflowType as VisibilityRecord['workflowType'],
    startTimestamp: s.startedAt,
    executionStatus: s.closeStatus ? 'CLOSED' : 'OPEN',
    cancelRequested: s.cancelRequested,
    version: s.lastEventId,
  };
  if (s.closeStatus) { rec.closeStatus = s.closeStatus; rec.closeTimestamp = s.closedAt ?? s.startedAt; }
  const tags = s.started.tagList as string[] | undefined;
  if (tags?.length) rec.tagList = tags;
  const parent = s.started.parentWorkflowExecution as Execution | undefined;
  if (parent) rec.parent = { workflowId: parent.workflowId, runId: parent.runId };
  return rec;
}

/** Whether two records show the same thing (the version may differ). */
export function sameVisibility(a: VisibilityRecord, b: VisibilityRecord): boolean {
  return a.executionStatus === b.executionStatus && a.closeStatus === b.closeStatus && a.cancelRequested === b.cancelRequested;
}

/** The AWS WorkflowExecutionInfo of a record (epoch seconds). */
export function executionInfoOf(r: VisibilityRecord): Record<string, unknown> {
  return {
    execution: r.execution,
    workflowType: r.workflowType,
    startTimestamp: r.startTimestamp / 1000,
    closeTimestamp: r.closeTimestamp === undefined ? undefined : r.closeTimestamp / 1000,
    executionStatus: r.executionStatus,
    closeStatus: r.closeStatus,
    parent: r.parent,
    tagList: r.tagList,
    cancelRequested: r.cancelRequested,
  };
}

/** Where an SWF run's record goes: its subject and the msgID of this version. */
export const swfVisibilityAddress = (s: Subjects, rec: VisibilityRecord): [subject: string, msgID: string] =>
  [s.visibility(rec.domain, rec.execution.runId), `vis:${rec.execution.runId}:${rec.version}`];
