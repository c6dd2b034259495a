import { describe, expect, it } from 'vitest';
import { ORDER_STEPS } from '../../src/demo/order-fulfilment.js';
import type { WireEvent } from '../../src/sdk/client.js';
import { sfnExecutionViolations, swfRunViolations, type SfnEvent, type SfnShape } from '../helpers/chaos-checks.js';

/** The chaos run's checkers see what they are meant to (a checker that never complains proves nothing). */

const T0 = 1_700_000_000;
function ev(eventId: number, eventType: string, attrs: Record<string, unknown> = {}, atSeconds = eventId / 10): WireEvent {
  return { eventId, eventType, eventTimestamp: T0 + atSeconds, [`${eventType[0]!.toLowerCase()}${eventType.slice(1)}EventAttributes`]: attrs };
}

/** A whole order run: 4 activities, a 3 s timer after the first, closed as completed. */
function orderRun(): WireEvent[] {
  const e: WireEvent[] = [ev(1, 'WorkflowExecutionStarted')];
  const add = (type: string, attrs: Record<string, unknown> = {}, at?: number) => { e.push(ev(e.length + 1, type, attrs, at)); return e.length; };
  let at = 1;
  for (const [i, name] of ORDER_STEPS.entries()) {
    const d = add('DecisionTaskScheduled', {}, at);
    const ds = add('DecisionTaskStarted', { scheduledEventId: d }, at);
    add('DecisionTaskCompleted', { scheduledEventId: d, startedEventId: ds }, at);
    const s = add('ActivityTaskScheduled', { activityId: `${name}-1`, activityType: { name, version: '1.0' } }, at);
    const st = add('ActivityTaskStarted', { scheduledEventId: s }, at);
    add('ActivityTaskCompleted', { scheduledEventId: s, startedEventId: st }, at);
    if (i === 0) {
      const t = add('TimerStarted', { timerId: 'pause', startToFireTimeout: '3' }, at);
      at += 3;
      add('TimerFired', { startedEventId: t }, at);
    }
    at += 1;
  }
  const d = add('DecisionTaskScheduled', {}, at);
  const ds = add('DecisionTaskStarted', { scheduledEventId: d }, at);
  add('DecisionTaskCompleted', { scheduledEventId: d, startedEventId: ds }, at);
  add('WorkflowExecutionCompleted', {}, at);
  return e;
}

describe('chaos checks: SWF runs', () => {
  it('a whole run has no violation', () => {
    expect(swfRunViolations(orderRun(), { timer: true })).toEqual([]);
  });

  it('a timer that fired early, a result recorded twice, a gap, a second close and an open run are named', () => {
    const early = orderRun().map((e) => (e.eventType === 'TimerFired' ? { ...e, eventTimestamp: e.eventTimestamp - 0.5 } : e));
    expect(swfRunViolations(early, { timer: true })).toContainEqual(expect.stringMatching(/^timer pause fired 500 ms early/));

    const run = orderRun();
    const completed = run.find((e) => e.eventType === 'ActivityTaskCompleted')!;
    const twice = [...run.slice(0, -1), { ...completed, eventId: run.length }, { ...run.at(-1)!, eventId: run.length + 1 }];
    expect(swfRunViolations(twice, { timer: true })).toEqual(expect.arrayContaining([
      expect.stringContaining('duplicate activity closed'), `${ORDER_STEPS[0]} result recorded 2 times`,
    ]));

    const gap = orderRun().filter((e) => e.eventId !== 5);
    expect(swfRunViolations(gap, { timer: true })).toContainEqual(expect.stringContaining('has eventId'));

    const closedTwice = [...orderRun(), ev(run.length + 1, 'WorkflowExecutionTerminated', {}, 99)];
    expect(swfRunViolations(closedTwice, { timer: true })).toEqual(expect.arrayContaining(['2 close events', 'ends with WorkflowExecutionTerminated, not WorkflowExecutionCompleted']));

    expect(swfRunViolations(orderRun().slice(0, 8), { timer: true })).toEqual(expect.arrayContaining(['its timer never fired', '0 close events']));
  });
});

describe('chaos checks: Step Functions executions', () => {
  const shape: SfnShape = { states: ['Go', 'Pause', 'Done'], attempts: { Go: 2 }, waits: { Pause: 3 } };
  const out = { ok: true };
  const ok = { status: 'SUCCEEDED', output: JSON.stringify(out) };
  const history = (waitSeconds = 3, attempts = 1): SfnEvent[] => {
    const e: SfnEvent[] = [];
    const add = (type: string, at: number, name?: string) => e.push({ id: e.length + 1, previousEventId: e.length, type, timestamp: T0 + at, ...(name ? { stateEnteredEventDetails: { name } } : {}) });
    add('ExecutionStarted', 0);
    add('TaskStateEntered', 0, 'Go');
    for (let i = 1; i < attempts; i++) { add('ActivityScheduled', 0); add('ActivityTimedOut', 0); }
    add('ActivityScheduled', 0); add('ActivityStarted', 0); add('ActivitySucceeded', 0);
    add('TaskStateExited', 0);
    add('WaitStateEntered', 1, 'Pause');
    add('WaitStateExited', 1 + waitSeconds);
    add('SucceedStateEntered', 5, 'Done');
    add('SucceedStateExited', 5);
    add('ExecutionSucceeded', 5);
    return e;
  };

  it('a whole execution has no violation, a retried Task within its attempts neither', () => {
    expect(sfnExecutionViolations(ok, out, history(), shape)).toEqual([]);
    expect(sfnExecutionViolations(ok, out, history(3, 2), shape)).toEqual([]);
  });

  it('more attempts than the Retry allows, a state entered twice, a Wait left early, a wrong output, a gap are named', () => {
    expect(sfnExecutionViolations(ok, out, history(3, 3), shape)).toEqual(['Go: 3 attempts, its Retry allows 2']);
    const again = history();
    again.splice(7, 0, { id: 0, previousEventId: 0, type: 'WaitStateEntered', timestamp: T0 + 1, stateEnteredEventDetails: { name: 'Pause' } });
    again.forEach((e, i) => { e.id = i + 1; e.previousEventId = i; });
    expect(sfnExecutionViolations(ok, out, again, shape)).toContain('state Pause entered 2 times');
    expect(sfnExecutionViolations(ok, out, history(1), shape)).toEqual(['Wait Pause left 2000 ms early']);
    expect(sfnExecutionViolations({ status: 'SUCCEEDED', output: '{"ok":false}' }, out, history(), shape)).toEqual(['output {"ok":false}, expected {"ok":true}']);
    expect(sfnExecutionViolations(ok, out, history().filter((e) => e.id !== 3), shape)).toContainEqual(expect.stringContaining('has id'));
    expect(sfnExecutionViolations({ status: 'RUNNING' }, out, history().slice(0, 8), shape)).toEqual(expect.arrayContaining(['status RUNNING', 'state Done entered 0 times']));
  });
});
