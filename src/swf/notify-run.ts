import type { EventType } from '../../machines/swf/history-event.js';
import type { ExecutionState } from '../../machines/swf/execution-state.js';
import type { RunKey } from './kind/execution.js';
import type { PartitionOwner } from './kind/partition-owner.js';

/** An answer from another run: a child's start or close, or the outcome of an external signal/cancel. */
export interface RunNotice {
  key: RunKey;
  type: EventType;
  attrs: Record<string, unknown>;
}

const CHILD_CLOSES = new Set<EventType>([
  'ChildWorkflowExecutionCompleted', 'ChildWorkflowExecutionFailed', 'ChildWorkflowExecutionTimedOut',
  'ChildWorkflowExecutionCanceled', 'ChildWorkflowExecutionTerminated',
]);

/**
 * Whether a notice still applies, and the attributes to record: notices may repeat after a crash,
 * so one that no longer matches an open child or a pending external request is ignored.
 */
function accept(s: ExecutionState, n: RunNotice): Record<string, unknown> | undefined {
  const ini = n.attrs.initiatedEventId as number;
  const child = s.children[ini];
  if (n.type === 'ChildWorkflowExecutionStarted' || n.type === 'StartChildWorkflowExecutionFailed') {
    return child && child.runId === null ? n.attrs : undefined;
  }
  if (CHILD_CLOSES.has(n.type)) {
    // initiatedEventId names the child; its run may have continued as new since it started.
    return child ? { ...n.attrs, startedEventId: child.startedEventId } : undefined;
  }
  return s.externals[ini] ? n.attrs : undefined;
}

/** Owner side: records a notice on the run it is for, if the run is open and the notice still applies. */
export async function notifyOnOwner(owner: PartitionOwner, n: RunNotice): Promise<object> {
  const run = await owner.open(n.key);
  if (!run) return {};
  await run.serial(async () => {
    if (run.isClosed) return;
    await run.commit((s, b) => {
      const child = s.children[n.attrs.initiatedEventId as number];
      if (CHILD_CLOSES.has(n.type) && child && child.runId === null) {
        // The child closed before its start was reported: record the start first.
        const startedEventId = b.add('ChildWorkflowExecutionStarted', {
          workflowExecution: n.attrs.workflowExecution, workflowType: n.attrs.workflowType, initiatedEventId: child.initiatedEventId,
        });
        b.add(n.type, { ...n.attrs, startedEventId });
        return;
      }
      const attrs = accept(s, n);
      if (attrs) b.add(n.type, attrs);
    });
  });
  return {};
}
