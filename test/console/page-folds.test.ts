import { describe, expect, it } from 'vitest';

/**
 * The folds the console's pages draw from a history, without a browser: the Step Functions state
 * statuses (sfn-status.js) and the SWF swimlane items (swimlanes.js). They are plain browser modules
 * that touch the DOM only when drawing, so Node imports them as they are.
 */
type Statuses = Map<string, { status: string; entered: number; exited: number; retries: number; error?: string; iterations?: number }>;
type Item = { lane: string; label: string; state: string; open?: boolean; point?: boolean };
const { stateStatuses } = await import(new URL('../../src/console/static/sfn-status.js', import.meta.url).href) as
  { stateStatuses(events: object[], definition: object): Statuses };
const { workflowItems } = await import(new URL('../../src/console/static/swimlanes.js', import.meta.url).href) as
  { workflowItems(events: object[], now: number, info: { closedAt: number | null }): Item[] };

let id = 0;
const ev = (type: string, details: object = {}) => ({ id: ++id, type, timestamp: id, previousEventId: id - 1, [`${type[0]!.toLowerCase()}${type.slice(1)}EventDetails`]: details });
const entered = (type: string, name: string) => ({ id: ++id, type: `${type}StateEntered`, timestamp: id, stateEnteredEventDetails: { name, input: '{}' } });
const exited = (type: string, name: string, output = '{}') => ({ id: ++id, type: `${type}StateExited`, timestamp: id, stateExitedEventDetails: { name, output } });
const statusOf = (s: Statuses) => Object.fromEntries([...s].map(([k, v]) => [k, v.status]));

describe('Step Functions state statuses', () => {
  const definition = {
    StartAt: 'Charge',
    States: {
      Charge: { Type: 'Task', Resource: 'arn', Retry: [{ ErrorEquals: ['Flaky'] }], Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Refund' }], Next: 'Fan' },
      Refund: { Type: 'Pass', Next: 'GiveUp' },
      GiveUp: { Type: 'Fail' },
      Fan: { Type: 'Parallel', Branches: [{ StartAt: 'A', States: { A: { Type: 'Task', Resource: 'arn', End: true } } }], Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Refund' }], End: true },
    },
  };

  it('a retry that succeeds is passed; running while entered and not exited', () => {
    const s = stateStatuses([ev('ExecutionStarted'), entered('Task', 'Charge'), ev('ActivityScheduled'), ev('ActivityFailed', { error: 'Flaky' }),
      ev('ActivityScheduled'), ev('ActivitySucceeded'), exited('Task', 'Charge'), entered('Parallel', 'Fan'), entered('Task', 'A')], definition);
    expect(statusOf(s)).toEqual({ Charge: 'passed', Fan: 'running', A: 'running' });
    expect(s.get('Charge')!.error).toBe('Flaky');
  });

  it('caught whether or not the caught state records its exit; the Fail state failed', () => {
    for (const withExit of [true, false]) {
      const s = stateStatuses([ev('ExecutionStarted'), entered('Task', 'Charge'), ev('ActivityScheduled'), ev('ActivityFailed', { error: 'Flaky' }),
        ev('ActivityScheduled'), ev('ActivityFailed', { error: 'CardDeclined' }), ...(withExit ? [exited('Task', 'Charge')] : []),
        entered('Pass', 'Refund'), exited('Pass', 'Refund'), entered('Fail', 'GiveUp'), ev('ExecutionFailed', { error: 'X' })], definition);
      expect(statusOf(s)).toEqual({ Charge: 'caught', Refund: 'passed', GiveUp: 'failed' });
      expect(s.get('Charge')).toMatchObject({ error: 'CardDeclined', retries: 1 });
    }
  });

  it('a failed branch fails its state; the Parallel is caught', () => {
    const s = stateStatuses([ev('ExecutionStarted'), entered('Task', 'Charge'), exited('Task', 'Charge'), entered('Parallel', 'Fan'), entered('Task', 'A'),
      ev('ActivityFailed', { error: 'Boom' }), { id: ++id, type: 'ParallelStateFailed', timestamp: id }, exited('Parallel', 'Fan'), entered('Pass', 'Refund')], definition);
    expect(statusOf(s)).toMatchObject({ A: 'failed', Fan: 'caught', Refund: 'running' });
  });

  it('an uncaught failure fails the open state; a stop aborts it; Map iterations are counted', () => {
    expect(statusOf(stateStatuses([entered('Task', 'Charge'), ev('ActivityTimedOut', { error: 'States.Timeout' }), ev('ExecutionFailed')], { States: { Charge: { Type: 'Task' } } })))
      .toEqual({ Charge: 'failed' });
    expect(statusOf(stateStatuses([entered('Wait', 'Nap'), ev('ExecutionAborted')], { States: { Nap: { Type: 'Wait' } } }))).toEqual({ Nap: 'aborted' });
    const map = { States: { Each: { Type: 'Map', ItemProcessor: { StartAt: 'Item', States: { Item: { Type: 'Pass', End: true } } } } } };
    const s = stateStatuses([entered('Map', 'Each'), ev('MapIterationStarted'), entered('Pass', 'Item'), exited('Pass', 'Item'), ev('MapIterationStarted'), entered('Pass', 'Item')], map);
    expect(s.get('Each')).toMatchObject({ status: 'running', iterations: 2 });
    expect(s.get('Item')).toMatchObject({ status: 'running', entered: 2, exited: 1 });
  });
});

describe('SWF swimlanes', () => {
  it('puts activities, timers, child workflows, signals and markers in their lanes with their outcome', () => {
    const e = (eid: number, type: string, attrs: object) => ({ id: eid, type, at: eid * 10, attrs });
    const items = workflowItems([
      e(1, 'WorkflowExecutionStarted', {}),
      e(5, 'ActivityTaskScheduled', { activityType: { name: 'Charge' }, activityId: 'a1' }),
      e(6, 'ActivityTaskStarted', { scheduledEventId: 5 }),
      e(7, 'ActivityTaskFailed', { scheduledEventId: 5 }),
      e(8, 'TimerStarted', { timerId: 't1', startToFireTimeout: '5' }),
      e(9, 'StartChildWorkflowExecutionInitiated', { workflowId: 'kid', workflowType: { name: 'Child' } }),
      e(10, 'ChildWorkflowExecutionStarted', { initiatedEventId: 9 }),
      e(11, 'WorkflowExecutionSignaled', { signalName: 'poke' }),
      e(12, 'SignalExternalWorkflowExecutionInitiated', { signalName: 'hello', workflowId: 'kid' }),
      e(13, 'ExternalWorkflowExecutionSignaled', { initiatedEventId: 12 }),
      e(14, 'MarkerRecorded', { markerName: 'checkpoint' }),
      e(15, 'TimerFired', { timerId: 't1' }),
      e(16, 'ChildWorkflowExecutionCompleted', { initiatedEventId: 9 }),
    ], 1000, { closedAt: null });
    expect(items.map((i) => [i.lane, i.label, i.state, Boolean(i.open)])).toEqual([
      ['activities', 'Charge (a1)', 'failed', false],
      ['timers', 'timer t1 (5 s)', 'fired', false],
      ['children', 'Child kid', 'completed', false],
      ['signals', '← poke', 'signal', false],
      ['signals', '→ hello to kid', 'signaled', false],
      ['markers', 'checkpoint', 'plain', false],
    ]);
    const open = workflowItems([e(1, 'WorkflowExecutionStarted', {}), e(2, 'ActivityTaskScheduled', { activityType: { name: 'Ship' }, activityId: 's' })], 1000, { closedAt: null });
    expect(open[0]).toMatchObject({ lane: 'activities', state: 'scheduled', open: true });
  });
});
