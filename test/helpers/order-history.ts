import { expect } from 'vitest';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { ORDER_STEPS } from '../../src/demo/order-fulfilment.js';
import { compact } from './engine.js';

/** Asserts the order-fulfilment history is exactly SWF's 29-event sequence with its cross-references. */
export function expectOrderHistory(events: WireEvent[]): void {
  const perActivity = ['DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'ActivityTaskScheduled', 'ActivityTaskStarted', 'ActivityTaskCompleted'];
  const expected = ['WorkflowExecutionStarted', ...ORDER_STEPS.flatMap(() => perActivity), 'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'WorkflowExecutionCompleted'];
  expect(events.map((x) => x.eventType)).toEqual(expected);
  expect(events.map((x) => x.eventId)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
  const text = compact(events, ['scheduledEventId', 'startedEventId', 'decisionTaskCompletedEventId']);
  expect(text).toContain('3 DecisionTaskStarted scheduledEventId=2 / 4 DecisionTaskCompleted scheduledEventId=2,startedEventId=3 / 5 ActivityTaskScheduled decisionTaskCompletedEventId=4 / 6 ActivityTaskStarted scheduledEventId=5 / 7 ActivityTaskCompleted scheduledEventId=5,startedEventId=6');
  expect(text).toContain('28 DecisionTaskCompleted scheduledEventId=26,startedEventId=27 / 29 WorkflowExecutionCompleted decisionTaskCompletedEventId=28');
  expect(events.filter((x) => x.eventType === 'ActivityTaskScheduled').map((x) => attributesOf(x).activityType.name)).toEqual([...ORDER_STEPS]);
  for (let i = 1; i < events.length; i++) expect(events[i]!.eventTimestamp).toBeGreaterThanOrEqual(events[i - 1]!.eventTimestamp);
}
