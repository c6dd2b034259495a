import { describe, expect, it } from 'vitest';
import { checkedJson, MAX_PAYLOAD_BYTES, payloadDepth } from '../../src/sfn/compile/payload-limit.js';
import { runCase, type SfnCase } from '../helpers/sfn-driver.js';
import { failed, ok, task } from './sfn-case-builders.js';

const LIMIT_CAUSE = (state: string) => `The state/task '${state}' returned a result with a size exceeding the maximum number of bytes service limit.`;
const E_ACUTE = 'é'; // 1 UTF-16 unit, 2 UTF-8 bytes

const cases: SfnCase[] = [
  {
    name: 'a Pass output of 140,000 × "é" twice (280 KB in UTF-8, 140,000 UTF-16 units) fails with States.DataLimitExceeded',
    definition: { StartAt: 'Twice', States: { Twice: { Type: 'Pass', Parameters: { 'a.$': '$.s', 'b.$': '$.s' }, End: true } } },
    input: { s: E_ACUTE.repeat(70_000) },
    expect: failed('States.DataLimitExceeded', LIMIT_CAUSE('Twice')),
    events: ['PassStateEntered', 'ExecutionFailed'],
  },
  {
    name: 'the same Pass with 60,000 × "é" twice (240 KB) is within the quota and succeeds',
    definition: { StartAt: 'Twice', States: { Twice: { Type: 'Pass', Parameters: { 'a.$': '$.s', 'b.$': '$.s' }, End: true } } },
    input: { s: E_ACUTE.repeat(60_000) },
    expect: ok({ a: E_ACUTE.repeat(60_000), b: E_ACUTE.repeat(60_000) }),
  },
  {
    name: 'States.StringSplit growing a 160 KB string into a 480 KB array fails the state',
    definition: { StartAt: 'Split', States: { Split: { Type: 'Pass', Parameters: { 'parts.$': "States.StringSplit($.s, ',')" }, End: true } } },
    input: { s: 'a,'.repeat(80_000) },
    expect: failed('States.DataLimitExceeded', LIMIT_CAUSE('Split')),
  },
  {
    name: 'States.ArrayPartition output past the quota fails the state',
    definition: { StartAt: 'Part', States: { Part: { Type: 'Pass', Parameters: { 'p.$': 'States.ArrayPartition($.a, 1)' }, End: true } } },
    input: { a: Array.from({ length: 70_000 }, () => 1) },
    expect: failed('States.DataLimitExceeded', LIMIT_CAUSE('Part')),
  },
  {
    name: 'a task result that makes the state output too large (ResultPath into the input) fails with States.DataLimitExceeded, which Catch States.ALL does not catch',
    definition: {
      StartAt: 'T',
      States: { T: task({ ResultPath: '$.r', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }], End: true }), Caught: { Type: 'Succeed' } },
    },
    input: { big: 'x'.repeat(200_000) },
    worker: [{ output: 'y'.repeat(100_000) }],
    expect: failed('States.DataLimitExceeded', LIMIT_CAUSE('T')),
  },
  {
    name: 'a task input past the quota after Parameters fails before anything is scheduled; an explicit Catch of States.DataLimitExceeded catches it',
    definition: {
      StartAt: 'T',
      States: {
        T: task({ Parameters: { 'a.$': '$.s', 'b.$': '$.s' }, Catch: [{ ErrorEquals: ['States.DataLimitExceeded'], Next: 'Caught', ResultPath: '$.err' }], End: true }),
        Caught: { Type: 'Pass', Parameters: { 'error.$': '$.err.Error' }, End: true },
      },
    },
    input: { s: 'z'.repeat(140_000) },
    expect: ok({ error: 'States.DataLimitExceeded' }),
    check: (r) => expect(r.types).not.toContain('ActivityScheduled'),
  },
  {
    name: 'a Map over 1,000 items of 150 characters (149 KB, inside 256 KB) runs to the end',
    definition: { StartAt: 'Each', States: { Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } }, ResultPath: null, End: true } } },
    input: { items: Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(150, '.')) },
    expect: { status: 'SUCCEEDED', output: { items: Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(150, '.')) } },
    check: (r) => expect(r.types.filter((t) => t === 'MapIterationSucceeded')).toHaveLength(1000),
  },
  {
    name: 'a Map whose collected results pass the quota fails with States.DataLimitExceeded once they do',
    definition: {
      StartAt: 'Each',
      States: { Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', Parameters: { 'v.$': '$$.Execution.Input.pad' }, End: true } } }, End: true } },
    },
    input: { items: Array.from({ length: 100 }, (_, i) => i), pad: 'p'.repeat(10_000) },
    expect: failed('States.DataLimitExceeded', LIMIT_CAUSE('Each')),
    check: (r) => {
      // 25 results of 10 KB fit, the 27th passes 256 KiB.
      expect(r.types.filter((t) => t === 'MapIterationSucceeded').length).toBeLessThan(30);
      expect(r.types).toContain('MapStateFailed');
    },
  },
  {
    // The intrinsic's own bounds (src/sfn/asl/bounds.ts) stop it first.
    name: 'an intrinsic building data nested past 1,000 levels fails with States.IntrinsicFailure (no stack overflow)',
    definition: { StartAt: 'Deep', States: { Deep: { Type: 'Pass', Parameters: { 'x.$': 'States.StringToJson($.s)' }, End: true } } },
    input: { s: `${'['.repeat(1500)}${']'.repeat(1500)}` },
    expect: failed('States.IntrinsicFailure'),
  },
  {
    name: 'a state output nested past 1,000 levels fails the state with States.Runtime (no stack overflow)',
    definition: { StartAt: 'Deep', States: { Deep: { Type: 'Pass', End: true } } },
    input: { d: JSON.parse(`${'['.repeat(1500)}${']'.repeat(1500)}`) as unknown },
    expect: failed('States.Runtime'),
  },
];

describe('payload quota (256 KiB in UTF-8) in the compiled machines', () => {
  for (const c of cases) {
    it(c.name, () => {
      const r = runCase(c);
      if (c.expect.status === 'SUCCEEDED') expect(r.output).toEqual(c.expect);
      else expect(r.output).toMatchObject(c.expect);
      if (c.events) expect(r.types).toEqual(c.events);
      c.check?.(r);
    });
  }
  describe('crash, restore and rearm at every step', () => {
    for (const c of cases) it(c.name, () => { expect(runCase(c, { crash: true }).output).toMatchObject(c.expect); });
  });

  it('measures bytes and depth without recursion', () => {
    expect(checkedJson(E_ACUTE.repeat(131_070), 'S').ok).toBe(true);
    expect(checkedJson(E_ACUTE.repeat(131_072), 'S')).toMatchObject({ ok: false, fault: { error: 'States.DataLimitExceeded' } });
    expect(checkedJson('x'.repeat(MAX_PAYLOAD_BYTES - 2), 'S').ok).toBe(true);
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    expect(payloadDepth(deep)).toBeGreaterThan(1000);
    expect(checkedJson(deep, 'S')).toMatchObject({ ok: false, fault: { error: 'States.Runtime' } });
  });
});
