import { describe, expect, it } from 'vitest';
import { runCase, type SfnCase, type SfnRun } from '../helpers/sfn-driver.js';
import { failed, ok, task } from './sfn-case-builders.js';

const LIMIT_CAUSE = (n: number) => `The execution reached the maximum number of history events (${n}).`;

/** Pass → Choice → Pass for ever (the Choice never leaves). */
const endless = {
  StartAt: 'Spin',
  States: {
    Spin: { Type: 'Pass', Next: 'Again' },
    Again: { Type: 'Choice', Choices: [{ Variable: '$.stop', BooleanEquals: true, Next: 'Done' }], Default: 'Spin' },
    Done: { Type: 'Succeed' },
  },
};

/** i = i + 1 while i < $.n (States.MathAdd + NumericLessThanPath). */
const counting = {
  StartAt: 'Add',
  States: {
    Add: { Type: 'Pass', Parameters: { 'i.$': 'States.MathAdd($.i, 1)', 'n.$': '$.n' }, Next: 'More' },
    More: { Type: 'Choice', Choices: [{ Variable: '$.i', NumericLessThanPath: '$.n', Next: 'Add' }], Default: 'Done' },
    Done: { Type: 'Succeed' },
  },
};

/** History size as the host stores it: ExecutionStarted (recorded by the host) plus what the machines recorded. */
const historySize = (run: SfnRun) => run.events.length + 1;

function run(c: SfnCase, crash: boolean): SfnRun {
  const r = runCase(c, { crash });
  expect(r.output).toEqual(c.expect);
  if (c.events) expect(r.types).toEqual(c.events);
  c.check?.(r);
  return r;
}

const cases: SfnCase[] = [
  {
    name: 'an endless Pass/Choice loop fails with States.Runtime at a small limit, the history exactly at the limit',
    definition: endless, input: { stop: false }, historyLimit: 20,
    expect: failed('States.Runtime', LIMIT_CAUSE(20)),
    check: (r) => {
      expect(historySize(r)).toBe(20);
      expect(r.types.at(-1)).toBe('ExecutionFailed');
      expect(r.types.slice(0, 4)).toEqual(['PassStateEntered', 'PassStateExited', 'ChoiceStateEntered', 'ChoiceStateExited']);
    },
  },
  {
    name: 'an endless Pass/Choice loop fails with States.Runtime at the default limit (25,000)',
    definition: endless, input: { stop: false },
    expect: failed('States.Runtime', LIMIT_CAUSE(25_000)),
    check: (r) => {
      expect(historySize(r)).toBe(25_000);
      expect(r.types.at(-1)).toBe('ExecutionFailed');
    },
  },
  {
    name: 'a bounded counting loop (MathAdd + NumericLessThanPath) completes with the right output',
    definition: counting, input: { i: 0, n: 1000 },
    expect: ok({ i: 1000, n: 1000 }),
    check: (r) => expect(historySize(r)).toBe(1000 * 4 + 2 + 2),
  },
  {
    name: 'the same loop needing one event more than the limit fails',
    definition: counting, input: { i: 0, n: 10 }, historyLimit: 10 * 4 + 2 + 2 - 1,
    expect: failed('States.Runtime', LIMIT_CAUSE(43)),
    check: (r) => expect(historySize(r)).toBeLessThanOrEqual(43),
  },
  {
    name: 'exactly at the limit the counting loop succeeds',
    definition: counting, input: { i: 0, n: 10 }, historyLimit: 44,
    expect: ok({ i: 10, n: 10 }),
    check: (r) => expect(historySize(r)).toBe(44),
  },
  {
    name: 'a States.Runtime limit failure is not caught by Catch States.ALL nor retried',
    definition: {
      StartAt: 'Par',
      States: {
        Par: {
          Type: 'Parallel', Branches: [endless], Next: 'Fine',
          Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 3 }], Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Fine' }],
        },
        Fine: { Type: 'Succeed' },
      },
    },
    input: { stop: false }, historyLimit: 50,
    expect: failed('States.Runtime', LIMIT_CAUSE(50)),
    check: (r) => {
      expect(historySize(r)).toBeLessThanOrEqual(50);
      expect(r.types).not.toContain('SucceedStateEntered');
    },
  },
  {
    name: 'Map iterations hand their counts to the parent: three short loops fit alone but not together',
    definition: {
      StartAt: 'Each',
      States: { Each: { Type: 'Map', ItemsPath: '$.items', MaxConcurrency: 1, ItemProcessor: counting, End: true } },
    },
    // Each iteration records 5 × 4 + 2 = 22 events, the Map 2 per iteration plus 2: the third
    // iteration starts with 58 - 51 = 7 events left (it would have 58 if counts were not handed back).
    input: { items: [{ i: 0, n: 5 }, { i: 0, n: 5 }, { i: 0, n: 5 }] }, historyLimit: 60,
    expect: failed('States.Runtime', LIMIT_CAUSE(60)),
    check: (r) => {
      expect(historySize(r)).toBeLessThanOrEqual(60);
      expect(r.types.filter((t) => t === 'MapIterationSucceeded')).toHaveLength(2);
      expect(r.types.filter((t) => t === 'MapIterationStarted')).toHaveLength(3);
    },
  },
  {
    name: 'the same Map with room for every iteration succeeds',
    definition: {
      StartAt: 'Each',
      States: { Each: { Type: 'Map', ItemsPath: '$.items', MaxConcurrency: 1, ItemProcessor: counting, End: true } },
    },
    input: { items: [{ i: 0, n: 5 }, { i: 0, n: 5 }, { i: 0, n: 5 }] }, historyLimit: 200,
    expect: ok([{ i: 5, n: 5 }, { i: 5, n: 5 }, { i: 5, n: 5 }]),
  },
  {
    name: 'a task whose ActivityStarted would pass the limit fails the execution instead of waiting',
    definition: { StartAt: 'T', States: { T: task({ End: true }) } },
    worker: [{ output: 'never seen' }], historyLimit: 4,
    expect: failed('States.Runtime', LIMIT_CAUSE(4)),
    events: ['TaskStateEntered', 'ActivityScheduled', 'ExecutionFailed'],
  },
];

describe('history limit: compiled machines count their events', () => {
  for (const c of cases) it(c.name, () => { run(c, false); });
  describe('crash, restore and rearm at every step', () => {
    for (const c of cases) it(c.name, () => { run(c, true); });
  });
});
