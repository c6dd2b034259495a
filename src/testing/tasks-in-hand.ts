import type { HistoryEvent } from '../../machines/swf/history-event.js';
import type { TaskWatch } from '../engine/virtual-clock.js';

const SWF_ACTIVITY_CLOSED = new Set(['ActivityTaskCompleted', 'ActivityTaskFailed', 'ActivityTaskTimedOut', 'ActivityTaskCanceled']);
const SFN_ACTIVITY_CLOSED = new Set(['ActivitySucceeded', 'ActivityFailed', 'ActivityTimedOut']);
const RUN_CLOSED = new Set([
  'WorkflowExecutionCompleted', 'WorkflowExecutionFailed', 'WorkflowExecutionCanceled', 'WorkflowExecutionTerminated',
  'WorkflowExecutionTimedOut', 'WorkflowExecutionContinuedAsNew',
  'ExecutionSucceeded', 'ExecutionFailed', 'ExecutionTimedOut', 'ExecutionAborted',
]);

/**
 * The tasks of both kinds in a worker's hand, read from the transitions stored (history is the
 * truth, and it also covers executions asleep): an SWF activity task from ActivityTaskStarted to
 * its close; an SWF decision task from DecisionTaskScheduled to its close (the decider is part of
 * the test: a scheduled decision is work about to happen, not a wait); a Step Functions activity
 * task from ActivityStarted to the event that follows it. A run that closes drops all of its own.
 */
export class TasksInHand implements TaskWatch {
  private readonly open = new Map<string, Set<string>>();
  private count = 0;

  get inHand(): number {
    return this.count;
  }

  stored(historyId: string, events: readonly HistoryEvent[]): void {
    for (const e of events) {
      const a = e.attrs as Record<string, unknown>;
      if (e.type === 'DecisionTaskScheduled') this.add(historyId, 'd');
      else if (e.type === 'DecisionTaskCompleted' || e.type === 'DecisionTaskTimedOut') this.remove(historyId, 'd');
      else if (e.type === 'ActivityTaskStarted') this.add(historyId, `a${String(a.scheduledEventId)}`);
      else if (SWF_ACTIVITY_CLOSED.has(e.type)) this.remove(historyId, `a${String(a.scheduledEventId)}`);
      else if ((e.type as string) === 'ActivityStarted') this.add(historyId, `s${e.id}`);
      else if (SFN_ACTIVITY_CLOSED.has(e.type)) this.remove(historyId, `s${String((e as unknown as { prev?: number }).prev)}`);
      else if (RUN_CLOSED.has(e.type)) this.drop(historyId);
    }
  }

  private add(id: string, key: string): void {
    let s = this.open.get(id);
    if (!s) { s = new Set(); this.open.set(id, s); }
    if (!s.has(key)) { s.add(key); this.count++; }
  }

  private remove(id: string, key: string): void {
    const s = this.open.get(id);
    if (!s?.delete(key)) return;
    this.count--;
    if (s.size === 0) this.open.delete(id);
  }

  private drop(id: string): void {
    this.count -= this.open.get(id)?.size ?? 0;
    this.open.delete(id);
  }
}
