import type { Logger } from 'pino';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { CLOSE_EVENTS } from '../../machines/swf/execution-state.js';
import { Fault, isFault } from '../protocol/faults.js';
import type { Execution, RunKey } from './kind/execution.js';
import type { RunEffects } from './kind/partition-owner.js';
import type { Router } from '../engine/router.js';
import type { RunNotice } from './notify-run.js';
import type { StartRun } from './operations/start-workflow-execution.js';
import type { SignalRun } from './operations/signal-workflow-execution.js';
import type { CancelRun } from './operations/request-cancel-workflow-execution.js';
import type { TerminateRun } from './operations/terminate-workflow-execution.js';

/** What a closing child tells its parent, by the child's close event. */
const CHILD_CLOSE: Partial<Record<string, { type: RunNotice['type']; keep: string[] }>> = {
  WorkflowExecutionCompleted: { type: 'ChildWorkflowExecutionCompleted', keep: ['result'] },
  WorkflowExecutionFailed: { type: 'ChildWorkflowExecutionFailed', keep: ['reason', 'details'] },
  WorkflowExecutionTimedOut: { type: 'ChildWorkflowExecutionTimedOut', keep: ['timeoutType'] },
  WorkflowExecutionCanceled: { type: 'ChildWorkflowExecutionCanceled', keep: ['details'] },
  WorkflowExecutionTerminated: { type: 'ChildWorkflowExecutionTerminated', keep: [] },
};

const pick = (a: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, a[k]]));

/**
 * Runs acting on other runs, after their own transition is persisted: start children, signal and
 * cancel other runs, report a child's close to its parent, apply child policies, continue as new.
 * Every answer comes back to the initiating run as a history event through its owner.
 */
export class CrossRunEffects implements RunEffects {
  constructor(private readonly router: Router, private readonly log: Logger) {}

  afterCommit(run: Execution, events: readonly HistoryEvent[]): void {
    for (const e of events) {
      if (e.type === 'StartChildWorkflowExecutionInitiated') this.spawn(() => this.startChild(run, e));
      else if (e.type === 'SignalExternalWorkflowExecutionInitiated') this.spawn(() => this.external(run, e, 'signal'));
      else if (e.type === 'RequestCancelExternalWorkflowExecutionInitiated') this.spawn(() => this.external(run, e, 'requestCancel'));
      else if (CLOSE_EVENTS[e.type]) this.spawn(() => this.closed(run, e));
    }
  }

  resume(run: Execution): void {
    const s = run.state;
    const byId = (id: number) => run.log.get(id);
    for (const c of Object.values(s.children)) {
      if (c.runId === null) this.spawn(async () => this.startChild(run, await byId(c.initiatedEventId)));
      else this.spawn(() => this.recheckChild(run, c.workflowId, c.runId!, c.initiatedEventId));
    }
    for (const x of Object.values(s.externals)) this.spawn(async () => this.external(run, await byId(x.initiatedEventId), x.kind === 'signal' ? 'signal' : 'requestCancel'));
  }

  private spawn(fn: () => Promise<void>): void {
    fn().catch((err) => this.log.warn({ err }, 'cross-run effect failed'));
  }

  private notify(key: RunKey, type: RunNotice['type'], attrs: Record<string, unknown>): Promise<unknown> {
    return this.router.call(key.partition, 'notify', { key, type, attrs } satisfies RunNotice);
  }

  private async startChild(parent: Execution, e: HistoryEvent): Promise<void> {
    const a = e.attrs;
    const { domain } = parent.key;
    const workflowId = a.workflowId as string;
    const partition = this.router.partitionOf(domain, workflowId);
    const run: StartRun = {
      domain, workflowId, partition,
      attrs: pick(a, ['input', 'taskList', 'executionStartToCloseTimeout', 'taskStartToCloseTimeout', 'childPolicy', 'taskPriority', 'lambdaRole', 'workflowType', 'tagList']),
      parent: { workflowId: parent.key.workflowId, runId: parent.key.runId, initiatedEventId: e.id },
    };
    try {
      const { runId } = await this.router.call(partition, 'start', run);
      await this.notify(parent.key, 'ChildWorkflowExecutionStarted', { workflowExecution: { workflowId, runId }, workflowType: a.workflowType, initiatedEventId: e.id });
    } catch (err) {
      if (!isFault(err) || err.name === 'InternalFailure') throw err;
      const cause = err.name === 'WorkflowExecutionAlreadyStartedFault' ? 'WORKFLOW_ALREADY_RUNNING' : 'OPEN_WORKFLOWS_LIMIT_EXCEEDED';
      await this.notify(parent.key, 'StartChildWorkflowExecutionFailed', {
        workflowType: a.workflowType, cause, workflowId, initiatedEventId: e.id, decisionTaskCompletedEventId: a.decisionTaskCompletedEventId, control: a.control,
      });
    }
  }

  /** After a crash: a child that closed while its parent was not told gets reported now. */
  private async recheckChild(parent: Execution, workflowId: string, runId: string, initiatedEventId: number): Promise<void> {
    const key = { domain: parent.key.domain, workflowId, runId, partition: this.router.partitionOf(parent.key.domain, workflowId) };
    const h = await this.router.call(key.partition, 'history', { key, reverse: true, pageSize: 1 });
    const last = h.events[0] as { eventType: string; [k: string]: unknown } | undefined;
    const close = last && CHILD_CLOSE[last.eventType];
    if (!close) return;
    const attrs = (last[`${last.eventType[0]!.toLowerCase()}${last.eventType.slice(1)}EventAttributes`] ?? {}) as Record<string, unknown>;
    const startedId = parent.state.children[initiatedEventId]?.startedEventId;
    const started = startedId ? await parent.log.get(startedId) : undefined;
    await this.notify(parent.key, close.type, {
      ...pick(attrs, close.keep), workflowExecution: { workflowId, runId }, workflowType: started?.attrs.workflowType, initiatedEventId,
    });
  }

  private async external(source: Execution, e: HistoryEvent, op: 'signal' | 'requestCancel'): Promise<void> {
    const a = e.attrs;
    const { domain } = source.key;
    const workflowId = a.workflowId as string;
    const target = { domain, workflowId, runId: a.runId as string | undefined, partition: this.router.partitionOf(domain, workflowId) };
    const external = { workflowExecution: { workflowId: source.key.workflowId, runId: source.key.runId }, initiatedEventId: e.id };
    try {
      const { runId } = op === 'signal'
        ? await this.router.call(target.partition, 'signal', { ...target, signalName: a.signalName as string, input: a.input as string | undefined, external } satisfies SignalRun)
        : await this.router.call(target.partition, 'requestCancel', { ...target, external } satisfies CancelRun);
      await this.notify(source.key, op === 'signal' ? 'ExternalWorkflowExecutionSignaled' : 'ExternalWorkflowExecutionCancelRequested',
        { workflowExecution: { workflowId, runId }, initiatedEventId: e.id });
    } catch (err) {
      if (!isFault(err, 'UnknownResourceFault')) throw err;
      await this.notify(source.key, op === 'signal' ? 'SignalExternalWorkflowExecutionFailed' : 'RequestCancelExternalWorkflowExecutionFailed', {
        workflowId, runId: a.runId, cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION', initiatedEventId: e.id,
        decisionTaskCompletedEventId: a.decisionTaskCompletedEventId, control: a.control,
      });
    }
  }

  private async closed(run: Execution, close: HistoryEvent): Promise<void> {
    const started = run.log.first.attrs;
    const { domain, workflowId } = run.key;
    if (close.type === 'WorkflowExecutionContinuedAsNew') {
      const a = close.attrs;
      await this.router.call(run.key.partition, 'start', {
        domain, workflowId, partition: run.key.partition,
        attrs: pick(a, ['input', 'taskList', 'executionStartToCloseTimeout', 'taskStartToCloseTimeout', 'childPolicy', 'taskPriority', 'lambdaRole', 'workflowType', 'tagList']),
        continues: { runId: a.newExecutionRunId as string, from: run.key.runId },
        parent: started.parentWorkflowExecution
          ? { ...(started.parentWorkflowExecution as { workflowId: string; runId: string }), initiatedEventId: started.parentInitiatedEventId as number }
          : undefined,
      } satisfies StartRun);
      return;
    }
    const parent = started.parentWorkflowExecution as { workflowId: string; runId: string } | undefined;
    const report = CHILD_CLOSE[close.type];
    if (parent && report) {
      const key = { domain, ...parent, partition: this.router.partitionOf(domain, parent.workflowId) };
      await this.notify(key, report.type, {
        ...pick(close.attrs, report.keep), workflowExecution: { workflowId, runId: run.key.runId },
        workflowType: started.workflowType, initiatedEventId: started.parentInitiatedEventId,
      });
    }
    if (close.type === 'WorkflowExecutionTerminated' || close.type === 'WorkflowExecutionTimedOut') await this.applyChildPolicy(run, close.attrs.childPolicy as string);
  }

  /** TERMINATE or REQUEST_CANCEL the parent's open children (cause CHILD_POLICY_APPLIED); ABANDON leaves them. */
  private async applyChildPolicy(parent: Execution, policy: string): Promise<void> {
    if (policy !== 'TERMINATE' && policy !== 'REQUEST_CANCEL') return;
    for (const c of Object.values(parent.state.children)) {
      if (c.runId === null) continue;
      const target = { domain: parent.key.domain, workflowId: c.workflowId, runId: c.runId, partition: this.router.partitionOf(parent.key.domain, c.workflowId) };
      const call = policy === 'TERMINATE'
        ? this.router.call(target.partition, 'terminate', { ...target, cause: 'CHILD_POLICY_APPLIED' } satisfies TerminateRun)
        : this.router.call(target.partition, 'requestCancel', { ...target, cause: 'CHILD_POLICY_APPLIED' } satisfies CancelRun);
      await call.catch((err: unknown) => { if (!(err instanceof Fault && err.name === 'UnknownResourceFault')) throw err; });
    }
  }
}
