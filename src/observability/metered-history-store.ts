import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { HistoryConflictError, HistoryStore, TransitionTooLargeError } from '../history/history-store.js';
import type { Quarantine } from '../history/quarantine.js';
import type { TimeSkipping } from '../engine/clock.js';
import type { NodeMetrics } from './metrics.js';

/**
 * The event store, timing every append of a transition (both writers use it: Execution.append and
 * StartWorkflowExecution's first transition). A transition refused for its size never reached
 * JetStream and is not counted. On a time-skipping clock, time does not jump while an append is in
 * flight, and each stored transition is reported to it (the tasks it hands out or closes).
 */
export class MeteredHistoryStore extends HistoryStore {
  constructor(private readonly metrics: NodeMetrics, js: JetStreamClient, jsm: JetStreamManager, stream: string, leaderReads = false, quarantine?: Quarantine,
    private readonly skipping?: TimeSkipping) {
    super(js, jsm, stream, leaderReads, quarantine);
  }

  override async append(subject: string, runId: string, events: HistoryEvent[], lastSeq: number, writer: string, extra?: unknown): Promise<number> {
    const t0 = performance.now();
    const release = this.skipping?.hold();
    try {
      const seq = await super.append(subject, runId, events, lastSeq, writer, extra);
      this.metrics.appended((performance.now() - t0) / 1000);
      this.skipping?.stored(runId, events);
      return seq;
    } catch (e) {
      if (!(e instanceof TransitionTooLargeError)) this.metrics.appendFailed(e instanceof HistoryConflictError ? 'conflict' : 'error');
      throw e;
    } finally {
      release?.();
    }
  }
}
