import type { HistoryEvent } from '../../../machines/swf/history-event.js';
import type { HistoryStore } from '../../history/history-store.js';
import type { EngineClock } from '../../engine/clock.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import { fromStored, type SfnStoredEvent } from '../kind/sfn-events.js';
import { SfnExecution, type SfnCommit } from '../kind/sfn-execution.js';

/** Where an express execution's events go once recorded: nowhere (logging OFF) or its log subject. */
export type ExpressSink = (events: readonly SfnStoredEvent[]) => Promise<void>;

/**
 * One EXPRESS execution: the standard kind's live execution (the same recording, event ids,
 * previousEventId links, causes and payload text) with its "append" sent to the express sink
 * instead of the history stream. Nothing is fenced, snapshotted or rebuilt: it lives in this node's
 * memory and runs at most once (AWS's express semantics).
 */
export class ExpressExecution extends SfnExecution {
  constructor(
    rec: SfnExecutionRecord,
    store: HistoryStore,
    clock: EngineClock,
    private readonly sink: ExpressSink,
    onCommit: (x: SfnExecution, c: SfnCommit) => Promise<void>,
    onError: (x: SfnExecution, err: unknown) => void,
  ) {
    // The store is never written: appendFenced below is the only way out of flush().
    super(rec, '', store, clock, onCommit, onError, undefined, 0, 0);
  }

  /** Never rebuilt: no snapshot is taken. */
  protected override snapshotToStore(): undefined {
    return undefined;
  }

  protected override async appendFenced(events: readonly HistoryEvent[]): Promise<void> {
    await this.sink(fromStored(events));
  }
}
