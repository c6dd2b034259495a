import { expect } from 'vitest';
import { SFN_T0, type SfnCase } from '../helpers/sfn-driver.js';
import { at, failed, ok, S, scheduledInput, single, task, terminal } from './sfn-case-builders.js';

/** Cases for Wait, Retry/Catch, timeouts, stop, Parallel and Map. */

const waitCases: SfnCase[] = [
  { name: 'Wait: Seconds', definition: single({ Type: 'Wait', Seconds: 10 }), input: { a: 1 }, expect: ok({ a: 1 }), events: ['WaitStateEntered', 'WaitStateExited', 'ExecutionSucceeded'], check: (run) => expect(at(run, 'WaitStateExited')).toBe(10 * S) },
  { name: 'Wait: Timestamp', definition: single({ Type: 'Wait', Timestamp: '2024-01-01T01:00:00Z' }), expect: ok({}), check: (run) => expect(at(run, 'WaitStateExited')).toBe(3600 * S) },
  { name: 'Wait: SecondsPath', definition: single({ Type: 'Wait', SecondsPath: '$.s' }), input: { s: 90 }, expect: ok({ s: 90 }), check: (run) => expect(at(run, 'WaitStateExited')).toBe(90 * S) },
  { name: 'Wait: TimestampPath', definition: single({ Type: 'Wait', TimestampPath: '$.t' }), input: { t: '2024-01-02T00:00:00Z' }, expect: ok({ t: '2024-01-02T00:00:00Z' }), check: (run) => expect(at(run, 'WaitStateExited')).toBe(86400 * S) },
  { name: 'Wait: a Timestamp in the past goes on at once', definition: single({ Type: 'Wait', Timestamp: '2020-01-01T00:00:00Z' }), expect: ok({}), check: (run) => expect(at(run, 'WaitStateExited')).toBe(0) },
  { name: 'Wait: a bad SecondsPath value fails with States.Runtime', definition: single({ Type: 'Wait', SecondsPath: '$.s' }), input: { s: 'soon' }, expect: failed('States.Runtime') },
  { name: 'Wait then Task', definition: { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 5, Next: 'T' }, T: task({ End: true }) } }, worker: [{ output: 'x' }], expect: ok('x'), check: (run) => expect(run.scheduledAt[0] - SFN_T0).toBe(5 * S) },
];

const retryCases: SfnCase[] = [
  {
    name: 'Retry: MaxAttempts 2 then the error propagates',
    definition: single(task({ Retry: [{ ErrorEquals: ['Boom'], MaxAttempts: 2, IntervalSeconds: 1 }] })),
    worker: [{ error: 'Boom' }, { error: 'Boom' }, { error: 'Boom' }],
    expect: failed('Boom'),
    check: (run) => {
      expect(run.types.filter((t) => t === 'ActivityScheduled')).toHaveLength(3);
      expect(run.events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.record.task!.key)).toEqual(['root#1', 'root#2', 'root#3']);
    },
  },
  {
    name: 'Retry: BackoffRate timings on the simulated clock (2 s, 6 s, 18 s)',
    definition: single(task({ Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 3, MaxAttempts: 3 }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { error: 'E' }, { output: 'finally' }],
    expect: ok('finally'),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 2 * S, 8 * S, 26 * S]),
  },
  {
    name: 'Retry: MaxDelaySeconds caps the backoff',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], IntervalSeconds: 4, BackoffRate: 10, MaxAttempts: 3, MaxDelaySeconds: 5 }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { error: 'E' }, { output: 1 }],
    expect: ok(1),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 4 * S, 9 * S, 14 * S]),
  },
  {
    name: 'Retry: JitterStrategy FULL keeps each delay within [0, nominal]',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], IntervalSeconds: 10, BackoffRate: 2, MaxAttempts: 3, JitterStrategy: 'FULL' }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { error: 'E' }, { output: 1 }],
    expect: ok(1),
    check: (run) => {
      const t = run.scheduledAt.map((x) => x - SFN_T0);
      [10, 20, 40].forEach((nominal, i) => {
        const d = t[i + 1] - t[i];
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(nominal * S);
      });
    },
  },
  {
    name: 'Retry: MaxAttempts 0 never retries',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], MaxAttempts: 0 }] })),
    worker: [{ error: 'E' }],
    expect: failed('E'),
  },
  {
    name: 'Retry: only the first matching retrier counts',
    definition: single(task({ Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }, { ErrorEquals: ['States.ALL'], MaxAttempts: 5 }] })),
    worker: [{ error: 'E' }, { error: 'E' }],
    expect: failed('E'),
  },
  {
    name: 'Retry: States.TaskFailed does not retry a timeout',
    definition: single(task({ TimeoutSeconds: 5, Retry: [{ ErrorEquals: ['States.TaskFailed'], MaxAttempts: 3 }] })),
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityTimedOut', 'ExecutionFailed'],
  },
  {
    name: 'Retry: States.TaskFailed retries a worker error',
    definition: single(task({ Retry: [{ ErrorEquals: ['States.TaskFailed'], MaxAttempts: 1 }] })),
    worker: [{ error: 'Anything' }, { output: 'second time' }],
    expect: ok('second time'),
  },
  {
    name: 'Retry: States.Timeout retries a timed-out task',
    definition: single(task({ TimeoutSeconds: 5, Retry: [{ ErrorEquals: ['States.Timeout'], MaxAttempts: 1, IntervalSeconds: 1 }] })),
    worker: [{ silent: true }, { output: 'ok' }],
    expect: ok('ok'),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 6 * S]),
  },
  {
    // AWS's context object has no $$.State.RetryCount: a retried state sees the same $$.State.
    name: 'Retry: $$.State is Name and EnteredTime only, the same on every attempt',
    definition: single(task({ Parameters: { 'state.$': '$$.State' }, Retry: [{ ErrorEquals: ['E'], MaxAttempts: 2 }] })),
    worker: [{ error: 'E' }, { error: 'E' }, { output: 'ok' }],
    expect: ok('ok'),
    check: (run) => expect([0, 1, 2].map((i) => scheduledInput(run, i))).toEqual(Array(3).fill({ state: { Name: 'S', EnteredTime: '2024-01-01T00:00:00.000Z' } })),
  },
  {
    name: 'Retry then Catch to a fallback with ResultPath',
    definition: {
      StartAt: 'T',
      States: {
        T: task({ Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }], Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.err', Next: 'Fallback' }], End: true }),
        Fallback: { Type: 'Pass', End: true },
      },
    },
    input: { a: 1 },
    worker: [{ error: 'E', cause: 'c1' }, { error: 'E', cause: 'c2' }],
    expect: ok({ a: 1, err: { Error: 'E', Cause: 'c2' } }),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityFailed', 'ActivityScheduled', 'ActivityStarted', 'ActivityFailed', 'TaskStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Catch: default ResultPath replaces the input with {Error, Cause}',
    definition: { StartAt: 'T', States: { T: task({ Catch: [{ ErrorEquals: ['E'], Next: 'F' }], End: true }), F: { Type: 'Pass', End: true } } },
    input: { a: 1 },
    worker: [{ error: 'E', cause: 'why' }],
    expect: ok({ Error: 'E', Cause: 'why' }),
  },
  {
    name: 'Catch: the first matching catcher wins; unmatched errors propagate',
    definition: {
      StartAt: 'T',
      States: {
        T: task({ Catch: [{ ErrorEquals: ['Other'], Next: 'A' }, { ErrorEquals: ['E'], Next: 'B' }], End: true }),
        A: { Type: 'Pass', Result: 'a', End: true },
        B: { Type: 'Pass', Result: 'b', End: true },
      },
    },
    worker: [{ error: 'E' }],
    expect: ok('b'),
  },
  {
    name: 'Catch: States.Runtime is not caught by States.ALL',
    definition: { StartAt: 'T', States: { T: task({ InputPath: '$.missing', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'F' }], End: true }), F: { Type: 'Succeed' } } },
    expect: failed('States.Runtime'),
  },
  {
    name: 'Catch: a Parameters failure on a Task is catchable',
    definition: { StartAt: 'T', States: { T: task({ Parameters: { 'x.$': '$.missing' }, Catch: [{ ErrorEquals: ['States.ParameterPathFailure'], Next: 'F' }], End: true }), F: { Type: 'Pass', Result: 'caught', End: true } } },
    expect: ok('caught'),
  },
];

const timeoutCases: SfnCase[] = [
  {
    name: 'Timeout: TimeoutSeconds with no worker',
    definition: single(task({ TimeoutSeconds: 30 })),
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(30 * S),
  },
  {
    name: 'Timeout: TimeoutSeconds counts from scheduling even after the start',
    definition: single(task({ TimeoutSeconds: 30 })),
    worker: [{ output: 'late', after: 40 * S }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(30 * S),
  },
  {
    name: 'Timeout: TimeoutSecondsPath',
    definition: single(task({ TimeoutSecondsPath: '$.t' })),
    input: { t: 7 },
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(7 * S),
  },
  {
    name: 'Timeout: HeartbeatSeconds fires after the start',
    definition: single(task({ HeartbeatSeconds: 10, TimeoutSeconds: 100 })),
    worker: [{ startSilent: true }],
    // AWS records a missed heartbeat as States.Timeout, in the task's event and the execution's error.
    expect: failed('States.Timeout'),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityTimedOut', 'ExecutionFailed'],
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(10 * S),
  },
  {
    name: 'Timeout: heartbeats keep a task alive past HeartbeatSeconds',
    definition: single(task({ HeartbeatSeconds: 10, HeartbeatSecondsPath: undefined, TimeoutSeconds: 1000 })),
    worker: [{ beats: 5, every: 8 * S, output: 'alive' }],
    expect: ok('alive'),
    check: (run) => expect(at(run, 'ActivitySucceeded')).toBe(40 * S),
  },
  {
    name: 'Timeout: HeartbeatSecondsPath',
    definition: single(task({ HeartbeatSecondsPath: '$.hb' })),
    input: { hb: 3 },
    worker: [{ startSilent: true }],
    expect: failed('States.Timeout'),
    check: (run) => expect(at(run, 'ActivityTimedOut')).toBe(3 * S),
  },
  {
    name: 'Timeout: Catch States.Timeout catches a heartbeat timeout',
    definition: { StartAt: 'T', States: { T: task({ HeartbeatSeconds: 5, Catch: [{ ErrorEquals: ['States.Timeout'], Next: 'F' }], End: true }), F: { Type: 'Pass', End: true } } },
    worker: [{ startSilent: true }],
    expect: ok({ Error: 'States.Timeout', Cause: '' }),
  },
  {
    name: 'Timeout: Catch States.HeartbeatTimeout catches a missed heartbeat, which is still States.Timeout',
    definition: { StartAt: 'T', States: { T: task({ HeartbeatSeconds: 5, Catch: [{ ErrorEquals: ['States.HeartbeatTimeout'], Next: 'F' }], End: true }), F: { Type: 'Pass', End: true } } },
    worker: [{ startSilent: true }],
    expect: ok({ Error: 'States.Timeout', Cause: '' }),
    check: (run) => expect(run.events.find((e) => e.record.type === 'ActivityTimedOut')!.record.details).toEqual({ error: 'States.Timeout' }),
  },
  {
    name: 'Timeout: Catch States.HeartbeatTimeout does not catch TimeoutSeconds',
    definition: { StartAt: 'T', States: { T: task({ TimeoutSeconds: 5, Catch: [{ ErrorEquals: ['States.HeartbeatTimeout'], Next: 'F' }], End: true }), F: { Type: 'Pass', End: true } } },
    worker: [{ silent: true }],
    expect: failed('States.Timeout'),
  },
  {
    name: 'Timeout: a Parallel Catch States.HeartbeatTimeout catches a branch\'s missed heartbeat',
    definition: { StartAt: 'P', States: {
      P: { Type: 'Parallel', Branches: [{ StartAt: 'T', States: { T: task({ HeartbeatSeconds: 5, End: true }) } }],
        Catch: [{ ErrorEquals: ['States.HeartbeatTimeout'], Next: 'F' }], End: true },
      F: { Type: 'Pass', End: true } } },
    worker: [{ startSilent: true }],
    expect: ok({ Error: 'States.Timeout', Cause: '' }),
  },
  {
    name: 'Timeout: Retry States.HeartbeatTimeout retries a missed heartbeat',
    definition: single(task({ HeartbeatSeconds: 5, Retry: [{ ErrorEquals: ['States.HeartbeatTimeout'], IntervalSeconds: 1, MaxAttempts: 1 }] })),
    worker: [{ startSilent: true }, { output: 'second' }],
    expect: ok('second'),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivityTimedOut', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Execution TimeoutSeconds → TIMED_OUT',
    definition: { TimeoutSeconds: 60, ...single(task()) },
    worker: [{ silent: true }],
    expect: { status: 'TIMED_OUT', error: 'States.Timeout' },
    events: ['TaskStateEntered', 'ActivityScheduled', 'ExecutionTimedOut'],
    check: (run) => expect(at(run, 'ExecutionTimedOut')).toBe(60 * S),
  },
  {
    name: 'Execution TimeoutSeconds during a Wait',
    definition: { TimeoutSeconds: 5, ...single({ Type: 'Wait', Seconds: 100 }) },
    expect: { status: 'TIMED_OUT', error: 'States.Timeout' },
    check: (run) => expect(at(run, 'ExecutionTimedOut')).toBe(5 * S),
  },
  {
    name: 'sfn.stop aborts a waiting execution',
    definition: single(task()),
    worker: [{ silent: true }],
    stopAfter: 3 * S,
    expect: { status: 'ABORTED', error: 'Stopped', cause: 'by the test' },
    events: ['TaskStateEntered', 'ActivityScheduled', 'ExecutionAborted'],
  },
  {
    name: 'sfn.stop aborts a Parallel with running branches',
    definition: single({ Type: 'Parallel', Branches: [{ StartAt: 'T1', States: { T1: task({ End: true }) } }, { StartAt: 'W1', States: { W1: { Type: 'Wait', Seconds: 100, End: true } } }] }),
    worker: [{ silent: true }],
    stopAfter: 10 * S,
    expect: { status: 'ABORTED', error: 'Stopped' },
  },
];

let branchNames = 0;
/** A one-state branch graph (state names are unique across a whole definition). */
const branch = (state: Record<string, unknown>) => {
  const name = `B${(branchNames += 1)}`;
  return { StartAt: name, States: { [name]: terminal(state) ? state : { ...state, End: true } } };
};

const parallelCases: SfnCase[] = [
  {
    name: 'Parallel: outputs in branch order',
    definition: single({ Type: 'Parallel', Branches: [branch(task()), branch({ Type: 'Pass', Result: 'p' }), branch({ Type: 'Wait', Seconds: 1 })] }),
    input: { in: 1 },
    worker: [{ output: 't', after: 5 * S }],
    expect: ok(['t', 'p', { in: 1 }]),
    check: (run) => {
      expect(run.types.slice(0, 2)).toEqual(['ParallelStateEntered', 'ParallelStateStarted']);
      expect(run.types.slice(-3)).toEqual(['ParallelStateSucceeded', 'ParallelStateExited', 'ExecutionSucceeded']);
      expect(new Set(run.events.map((e) => e.actorId))).toEqual(new Set(['root', 'root/S.1.0', 'root/S.1.1', 'root/S.1.2']));
    },
  },
  {
    name: 'Parallel: exact events with two Pass branches',
    definition: single({ Type: 'Parallel', Branches: [branch({ Type: 'Pass', Result: 1 }), branch({ Type: 'Pass', Result: 2 })] }),
    expect: ok([1, 2]),
    events: ['ParallelStateEntered', 'ParallelStateStarted', 'PassStateEntered', 'PassStateExited', 'PassStateEntered', 'PassStateExited', 'ParallelStateSucceeded', 'ParallelStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Parallel: a failing branch fails the state with its error and stops the others',
    definition: single({ Type: 'Parallel', Branches: [branch(task()), branch({ Type: 'Fail', Error: 'BranchErr', Cause: 'b' })] }),
    worker: [{ silent: true }],
    expect: failed('BranchErr', 'b'),
    check: (run) => expect(run.types).toContain('ParallelStateFailed'),
  },
  {
    name: 'Parallel: nested Parallel',
    definition: single({ Type: 'Parallel', Branches: [branch({ Type: 'Parallel', Branches: [branch(task()), branch({ Type: 'Pass', Result: 'deep' })] }), branch({ Type: 'Pass', Result: 'top' })] }),
    worker: [{ output: 'nested task' }],
    expect: ok([['nested task', 'deep'], 'top']),
    check: (run) => expect(run.events.find((e) => e.record.type === 'ActivityScheduled')!.record.task!.key).toMatch(/^root\/S\.1\.0\/B\d+\.1\.0#1$/),
  },
  {
    name: 'Parallel: Parameters, ResultSelector, ResultPath',
    definition: single({ Type: 'Parallel', Parameters: { 'v.$': '$.x' }, Branches: [branch({ Type: 'Pass' }), branch({ Type: 'Pass', InputPath: '$.v' })], ResultSelector: { 'first.$': '$[0].v', 'second.$': '$[1]' }, ResultPath: '$.r' }),
    input: { x: 4 },
    expect: ok({ x: 4, r: { first: 4, second: 4 } }),
  },
  {
    name: 'Parallel: Catch on a failed branch',
    definition: { StartAt: 'P', States: { P: { Type: 'Parallel', Branches: [branch({ Type: 'Fail', Error: 'X' })], Catch: [{ ErrorEquals: ['X'], ResultPath: '$.e', Next: 'F' }], End: true }, F: { Type: 'Pass', End: true } } },
    input: { k: 1 },
    expect: ok({ k: 1, e: { Error: 'X', Cause: '' } }),
  },
  {
    name: 'Parallel: Retry runs the branches again with new child ids',
    definition: single({ Type: 'Parallel', Branches: [branch(task())], Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }] }),
    worker: [{ error: 'E' }, { output: 'again' }],
    expect: ok(['again']),
    check: (run) => expect(run.events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.record.task!.key)).toEqual(['root/S.1.0#1', 'root/S.2.0#1']),
  },
];

const mapCases: SfnCase[] = [
  {
    name: 'Map: ItemsPath, results in item order',
    definition: single({ Type: 'Map', ItemsPath: '$.items', ItemProcessor: { StartAt: 'Double', States: { Double: { Type: 'Pass', Parameters: { 'v.$': 'States.MathAdd($.n, $.n)' }, End: true } } } }),
    input: { items: [{ n: 1 }, { n: 2 }, { n: 3 }] },
    expect: ok([{ v: 2 }, { v: 4 }, { v: 6 }]),
    check: (run) => {
      expect(run.types.slice(0, 2)).toEqual(['MapStateEntered', 'MapStateStarted']);
      expect(run.events[1].record.details).toEqual({ length: 3 });
      expect(run.types.filter((t) => t === 'MapIterationSucceeded')).toHaveLength(3);
    },
  },
  {
    name: 'Map: ItemSelector with $$.Map.Item.Index and Value',
    definition: single({ Type: 'Map', ItemSelector: { 'i.$': '$$.Map.Item.Index', 'v.$': '$$.Map.Item.Value', 'c.$': '$.common' }, ItemsPath: '$.xs', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: { xs: ['a', 'b'], common: 7 },
    expect: ok([{ i: 0, v: 'a', c: 7 }, { i: 1, v: 'b', c: 7 }]),
  },
  {
    name: 'Map: MaxConcurrency 1 runs the items one after another',
    definition: single({ Type: 'Map', MaxConcurrency: 1, ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }),
    input: [1, 2, 3],
    worker: [{ output: 'a', after: 2 * S }, { output: 'b', after: 2 * S }, { output: 'c', after: 2 * S }],
    expect: ok(['a', 'b', 'c']),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 2 * S, 4 * S]),
  },
  {
    name: 'Map: MaxConcurrency 0 starts every item at once',
    definition: single({ Type: 'Map', MaxConcurrency: 0, ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }),
    input: [1, 2, 3],
    worker: [{ output: 'a', after: 2 * S }, { output: 'b', after: 2 * S }, { output: 'c', after: 2 * S }],
    expect: ok(['a', 'b', 'c']),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 0, 0]),
  },
  {
    name: 'Map: MaxConcurrencyPath 2',
    definition: single({ Type: 'Map', ItemsPath: '$.xs', MaxConcurrencyPath: '$.c', ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }),
    input: { xs: [1, 2, 3], c: 2 },
    worker: [{ output: 1, after: S }, { output: 2, after: S }, { output: 3, after: S }],
    expect: ok([1, 2, 3]),
    check: (run) => expect(run.scheduledAt.map((t) => t - SFN_T0)).toEqual([0, 0, S]),
  },
  {
    name: 'Map: a failing iteration fails the Map',
    definition: single({ Type: 'Map', ItemProcessor: { StartAt: 'C', States: { C: { Type: 'Choice', Choices: [{ Variable: '$', NumericEquals: 2, Next: 'Bad' }], Default: 'Good' }, Bad: { Type: 'Fail', Error: 'Two', Cause: 'item 2' }, Good: { Type: 'Succeed' } } } }),
    input: [1, 2, 3],
    expect: failed('Two', 'item 2'),
    check: (run) => {
      expect(run.types).toContain('MapIterationFailed');
      expect(run.types).toContain('MapStateFailed');
    },
  },
  {
    name: 'Map: empty items',
    definition: single({ Type: 'Map', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: [],
    expect: ok([]),
    events: ['MapStateEntered', 'MapStateStarted', 'MapStateSucceeded', 'MapStateExited', 'ExecutionSucceeded'],
  },
  {
    name: 'Map: items that are not an array fail with States.Runtime',
    definition: single({ Type: 'Map', ItemsPath: '$.xs', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: { xs: 'nope' },
    expect: failed('States.Runtime'),
  },
  {
    name: 'Map inside Parallel',
    definition: single({ Type: 'Parallel', Branches: [branch({ Type: 'Map', ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } } }), branch({ Type: 'Pass', Result: 'side' })] }),
    input: ['x', 'y'],
    worker: [{ output: 'X' }, { output: 'Y' }],
    expect: ok([['X', 'Y'], 'side']),
    check: (run) => expect(run.events.filter((e) => e.record.type === 'ActivityScheduled').map((e) => e.record.task!.key.replace(/B\d+/, 'M'))).toEqual(['root/S.1.0/M.1.0#1', 'root/S.1.0/M.1.1#1']),
  },
  {
    name: 'Map: Catch and ResultPath on an iteration failure',
    definition: { StartAt: 'M', States: { M: { Type: 'Map', ResultPath: '$.r', ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } }, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'F' }], End: true }, F: { Type: 'Pass', End: true } } },
    input: [1],
    worker: [{ error: 'ItemErr', cause: 'c' }],
    expect: ok({ Error: 'ItemErr', Cause: 'c' }),
  },
  {
    name: 'Map: Retry restarts every iteration',
    definition: single({ Type: 'Map', MaxConcurrency: 1, ItemProcessor: { StartAt: 'T', States: { T: task({ End: true }) } }, Retry: [{ ErrorEquals: ['E'], MaxAttempts: 1 }] }),
    input: [1, 2],
    worker: [{ output: 'a' }, { error: 'E' }, { output: 'a2' }, { output: 'b2' }],
    expect: ok(['a2', 'b2']),
  },
  {
    name: 'Map: legacy Iterator and Parameters',
    definition: single({ Type: 'Map', Parameters: { 'x.$': '$$.Map.Item.Value' }, Iterator: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } } }),
    input: [5],
    expect: ok([{ x: 5 }]),
  },
];

export const CONTROL_CASES: SfnCase[] = [...waitCases, ...retryCases, ...timeoutCases, ...parallelCases, ...mapCases];
