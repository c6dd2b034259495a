import { SingleFlight } from '../../engine/single-flight.js';
import { EventLog } from '../../history/event-log.js';
import type { HistoryStore } from '../../history/history-store.js';

/** Histories a node holds at once for paging; each holds about 2 MB of events at most (EventLog's tail and read cache). */
const HELD = 8;

/** `ordered` while every transition's ids come after the previous one's (not so after a foreign write). */
export interface Held { log: EventLog; lastSeq: number; ordered: boolean }

/**
 * The Step Functions histories this node paged lately, each an EventLog (an index of its
 * transitions, the newest of them and a small cache of ones read back) brought up to date from the
 * store on every use: a page reads the transitions that hold its events, not the whole history
 * again (GetExecutionHistory of a 12,000-event execution read all of it for every page of 100).
 */
export class HistoryLogs {
  private readonly held = new Map<string, Held>();
  private readonly loads = new SingleFlight<string, Held>();

  constructor(private readonly store: HistoryStore) {}

  /** The history on `subject` of the execution started at `startDate` (a name used again after a purge is another). */
  of(subject: string, startDate: number): Promise<Held> {
    const key = `${subject} ${startDate}`;
    return this.loads.run(key, async () => {
      // Taken out while it is brought up to date: a read that fails leaves nothing half extended.
      let h = this.held.get(key) ?? this.empty();
      this.held.delete(key);
      const lastSeq = h.lastSeq;
      await this.extend(subject, h);
      // The history was removed (a purge) since: what is held no longer is.
      if (h.lastSeq < lastSeq) await this.extend(subject, h = this.empty());
      this.held.set(key, h);
      for (const k of this.held.keys()) {
        if (this.held.size <= HELD) break;
        this.held.delete(k);
      }
      return h;
    });
  }

  private empty(): Held {
    return { log: new EventLog((seq) => this.store.readTransition(seq)), lastSeq: 0, ordered: true };
  }

  /** Adds the transitions stored after the last one `h` holds. */
  private async extend(subject: string, h: Held): Promise<void> {
    h.lastSeq = await this.store.scan(subject, (events, seq) => {
      if (events[0]!.id <= h.log.length) h.ordered = false;
      h.log.push(events, seq);
    }, h.lastSeq);
  }
}

const perStore = new WeakMap<HistoryStore, HistoryLogs>();

/** This node's held Step Functions histories, read through `store`. */
export function historyLogs(store: HistoryStore): HistoryLogs {
  let logs = perStore.get(store);
  if (!logs) {
    logs = new HistoryLogs(store);
    perStore.set(store, logs);
  }
  return logs;
}
