import type { HistoryEvent } from '../../../machines/history-event.js';
import type { SfnEventType } from '../compile/contract.js';

/**
 * A Step Functions history event as the store keeps it: the shared HistoryEvent shape (`attrs` holds
 * the `<camelType>EventDetails` member) plus `prev`, the previousEventId of the wire form.
 */
export interface SfnStoredEvent {
  type: SfnEventType;
  id: number;
  /** epoch ms */
  at: number;
  attrs: Record<string, unknown>;
  prev: number;
}

/** The wire form of GetExecutionHistory (timestamp in epoch seconds). */
export interface SfnWireEvent {
  timestamp: number;
  type: SfnEventType;
  id: number;
  previousEventId: number;
  [details: string]: unknown;
}

/** The HistoryStore speaks HistoryEvent; Step Functions events travel through it unchanged. */
export const asStored = (events: readonly SfnStoredEvent[]): HistoryEvent[] => events as unknown as HistoryEvent[];
export const fromStored = (events: readonly HistoryEvent[]): SfnStoredEvent[] => events as unknown as SfnStoredEvent[];

const DATA_MEMBERS = new Set(['input', 'inputDetails', 'output', 'outputDetails']);

/** `ActivityScheduled` → `activityScheduledEventDetails`. */
export function detailsMember(type: string): string {
  return `${type[0]!.toLowerCase()}${type.slice(1)}EventDetails`;
}

/** One stored event as AWS sends it; `includeData: false` drops the input/output members. */
export function toWireEvent(e: SfnStoredEvent, includeData = true): SfnWireEvent {
  const details = includeData ? e.attrs : Object.fromEntries(Object.entries(e.attrs).filter(([k]) => !DATA_MEMBERS.has(k)));
  return { timestamp: e.at / 1000, type: e.type, id: e.id, previousEventId: e.prev, [detailsMember(e.type)]: details };
}
