import type { Attributes, EventType, HistoryEvent } from '../../../machines/swf/history-event.js';

/** The events of one transition: consecutive ids after the run's last event, one timestamp. */
export class EventBatch {
  readonly events: HistoryEvent[] = [];
  constructor(private nextId: number, readonly at: number) {}

  /** Adds an event and returns its id (later events of the batch may reference it). */
  add(type: EventType, attrs: Attributes): number {
    const id = this.nextId++;
    this.events.push({ type, id, at: this.at, attrs: stripUndefined(attrs) });
    return id;
  }

  get peekNextId(): number {
    return this.nextId;
  }
}

function stripUndefined(a: Attributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(a)) if (v !== undefined) out[k] = v;
  return out;
}
