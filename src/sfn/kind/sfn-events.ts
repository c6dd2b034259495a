import type { HistoryEvent } from '../../../machines/swf/history-event.js';
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

/**
 * Event types whose details member is not `<camelType>EventDetails` in the AWS model: every
 * `…StateEntered` shares `stateEnteredEventDetails`, every `…StateExited` `stateExitedEventDetails`;
 * the model has no details member at all for these (an AWS SDK would drop one).
 */
const NO_DETAILS = new Set<string>([
  'TaskStateAborted', 'WaitStateAborted', 'ParallelStateStarted', 'ParallelStateSucceeded', 'ParallelStateFailed',
  'ParallelStateAborted', 'MapStateSucceeded', 'MapStateFailed', 'MapStateAborted', 'MapRunSucceeded',
]);

/** The HistoryEvent member holding this type's details (`ActivityScheduled` → `activityScheduledEventDetails`). */
export function detailsMember(type: string): string | undefined {
  if (type.endsWith('StateEntered')) return 'stateEnteredEventDetails';
  if (type.endsWith('StateExited')) return 'stateExitedEventDetails';
  if (NO_DETAILS.has(type)) return undefined;
  return `${type[0]!.toLowerCase()}${type.slice(1)}EventDetails`;
}

/** One stored event as AWS sends it; `includeData: false` drops the input/output members. */
export function toWireEvent(e: SfnStoredEvent, includeData = true): SfnWireEvent {
  const wire: SfnWireEvent = { timestamp: e.at / 1000, type: e.type, id: e.id, previousEventId: e.prev };
  const member = detailsMember(e.type);
  if (member === undefined) return wire;
  wire[member] = includeData ? e.attrs : Object.fromEntries(Object.entries(e.attrs).filter(([k]) => !DATA_MEMBERS.has(k)));
  return wire;
}
