import { pack, unpack } from 'msgpackr';
import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { parseArn } from '../../src/sfn/arns.js';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnExecutionOutput, SfnInputEvent, SfnRecord } from '../../src/sfn/compile/contract.js';
import { childExecutionArn, mapRunNames, readMapRunArn } from '../../src/sfn/map-runs/map-run-arns.js';
import { exceeded, MAP_RUN_RESOURCE, type MapRunRequest } from '../../src/sfn/map-runs/map-runner.js';
import { mapRunCounts, type MapRunRecord } from '../../src/sfn/map-runs/map-run-records.js';
import { executionInput, SFN_T0, testHooks } from '../helpers/sfn-driver.js';

/* The Distributed Map state in the compiled machine (simulated clock), and the map run's names and counts. */

const EXEC = 'arn:aws:states:us-east-1:123456789012:execution:sm:exec-1';

function start(map: object, input: unknown, crash = false, states: object = {}) {
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const records: SfnRecord[] = [];
  const definition = {
    StartAt: 'Fan',
    States: {
      Fan: {
        Type: 'Map', End: true, ResultPath: '$.out',
        ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' }, StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
        ...map,
      },
      ...states,
    },
  };
  const machine = compileStateMachine(parseDefinition(JSON.stringify(definition)), { clock, hooks: testHooks((_a, r) => records.push(r), input) }).machine;
  let actor = createActor(machine, { id: 'root', clock, input: executionInput(input) }).start();
  const request = () => {
    const r = records.find((e) => e.type === 'MapRunStarted')!;
    return { key: r.task!.key, req: JSON.parse(r.task!.input) as MapRunRequest, resource: r.task!.resource };
  };
  const send = (e: SfnInputEvent) => {
    if (crash) {
      const snap = unpack(pack(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))));
      actor.stop();
      actor = createActor(machine, { id: 'root', clock, input: executionInput(input), snapshot: snap as never }).start();
      actor.send({ type: 'sfn.rearm' });
    }
    actor.send(e);
  };
  return { records, request, send, output: () => actor.getSnapshot().output as SfnExecutionOutput };
}

describe('Distributed Map in the compiled machine', () => {
  it('asks for a map run of the selected items in batches, then takes its outputs as the result', () => {
    const input = { items: [1, 2, 3, 4, 5], tag: 'x', limit: 2 };
    const run = start({
      ItemsPath: '$.items', Label: 'L', MaxConcurrencyPath: '$.limit', ToleratedFailureCount: 1,
      ItemSelector: { 'v.$': '$$.Map.Item.Value', 'i.$': '$$.Map.Item.Index' },
      ItemBatcher: { MaxItemsPerBatch: 2, BatchInput: { 'tag.$': '$.tag' } },
    }, input, true);
    const { key, req, resource } = run.request();
    expect(resource).toBe(MAP_RUN_RESOURCE);
    expect(req.inputs).toEqual([
      { BatchInput: { tag: 'x' }, Items: [{ v: 1, i: 0 }, { v: 2, i: 1 }] },
      { BatchInput: { tag: 'x' }, Items: [{ v: 3, i: 2 }, { v: 4, i: 3 }] },
      { BatchInput: { tag: 'x' }, Items: [{ v: 5, i: 4 }] },
    ]);
    expect({ batches: req.batches, max: req.maxConcurrency, count: req.toleratedFailureCount, pct: req.toleratedFailurePercentage }).toEqual({ batches: [2, 2, 1], max: 2, count: 1, pct: undefined });
    expect(req.mapRunArn).toBe(mapRunNames(EXEC, 'Fan', 'L', key).mapRunArn);
    expect(JSON.parse(req.definition)).toEqual({ StartAt: 'P', States: { P: { Type: 'Pass', End: true, QueryLanguage: 'JSONPath' } } });
    run.send({ type: 'sfn.activity.succeeded', key, output: ['a', 'b', 'c'] });
    expect(run.records.map((r) => r.type)).toEqual(['MapStateEntered', 'MapStateStarted', 'MapRunStarted', 'MapRunSucceeded', 'MapStateSucceeded', 'MapStateExited', 'ExecutionSucceeded']);
    expect(run.records.find((r) => r.type === 'MapStateStarted')!.details).toEqual({ length: 3 });
    expect(run.output()).toEqual({ status: 'SUCCEEDED', output: { ...input, out: ['a', 'b', 'c'] } });
  });

  it('splits batches by MaxInputBytesPerBatch', () => {
    const run = start({ ItemBatcher: { MaxInputBytesPerBatch: 30 } }, ['aaaa', 'bbbb', 'cccc']);
    // {"Items":["aaaa","bbbb"]} is 25 bytes; a third item would pass 30.
    expect(run.request().req.inputs).toEqual([{ Items: ['aaaa', 'bbbb'] }, { Items: ['cccc'] }]);
  });

  it('fails the state with the map run\'s error, which Catch can take', () => {
    const caught = { Caught: { Type: 'Pass', End: true } };
    const run = start({ Catch: [{ ErrorEquals: ['States.ExceedToleratedFailureThreshold'], Next: 'Caught', ResultPath: '$.err' }], ResultPath: undefined, ItemsPath: '$.items' }, { x: 1, items: [1] }, true, caught);
    const { key } = run.request();
    run.send({ type: 'sfn.activity.failed', key, error: 'States.ExceedToleratedFailureThreshold', cause: 'too many' });
    expect(run.records.map((r) => r.type)).toEqual(['MapStateEntered', 'MapStateStarted', 'MapRunStarted', 'MapRunFailed', 'MapStateFailed', 'MapStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded']);
    expect(run.records.find((r) => r.type === 'MapRunFailed')!.details).toEqual({ error: 'States.ExceedToleratedFailureThreshold', cause: 'too many' });
    expect(run.output()).toEqual({ status: 'SUCCEEDED', output: { x: 1, items: [1], err: { Error: 'States.ExceedToleratedFailureThreshold', Cause: 'too many' } } });
  });

  it('refuses a ToleratedFailurePercentagePath that is not a number from 0 to 100 (States.Runtime)', () => {
    const run = start({ ToleratedFailurePercentagePath: '$.p', ItemsPath: '$.items' }, { items: [1], p: 150 });
    expect(run.records.map((r) => r.type)).toEqual(['MapStateEntered', 'ExecutionFailed']);
    expect(run.output()).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });
});

describe('map-run names and counts', () => {
  it('derives the map run ARN and child names from the execution and the visit, never at random', () => {
    const a = mapRunNames(EXEC, 'Fan', 'Label1', 'root#1');
    expect(a).toEqual(mapRunNames(EXEC, 'Fan', 'Label1', 'root#1'));
    expect(a.mapRunArn).toMatch(/^arn:aws:states:us-east-1:123456789012:mapRun:sm\/Label1:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.childStateMachineArn).toBe('arn:aws:states:us-east-1:123456789012:stateMachine:sm/Label1');
    expect(mapRunNames(EXEC, 'Fan', 'Label1', 'root#2').mapRunArn).not.toBe(a.mapRunArn);
    expect(readMapRunArn(a.mapRunArn)).toMatchObject({ stateMachineName: 'sm', label: 'Label1' });
    expect(readMapRunArn('arn:aws:states:us-east-1:123456789012:mapRun:sm:x')).toBeUndefined();
    const child = childExecutionArn(a.mapRunArn, 3);
    expect(child).toBe(childExecutionArn(a.mapRunArn, 3));
    expect(parseArn(child, 'execution', 'executionArn')).toMatchObject({ stateMachineName: 'sm/Label1' });
    expect(() => parseArn('arn:aws:states:us-east-1:123456789012:execution:sm/a/b:x', 'execution', 'executionArn')).toThrow(/Invalid Arn/);
    expect(() => parseArn('arn:aws:states:us-east-1:123456789012:execution:sm/:x', 'execution', 'executionArn')).toThrow(/Invalid Arn/);
    // Without a Label, a UUID of the execution and state stands in (as AWS's labels are without one).
    expect(mapRunNames(EXEC, 'Fan', undefined, 'root#1').childStateMachineName).toMatch(/^sm\/[0-9a-f-]{36}$/);
  });

  it('counts items per batch and executions per child; tolerates by count, by percentage, or neither', () => {
    const rec = { children: 'PRSFTA', batches: [1, 2, 3, 4, 5, 6], toleratedFailureCount: 0, toleratedFailurePercentage: 0 } as MapRunRecord;
    const { itemCounts, executionCounts } = mapRunCounts(rec);
    expect(itemCounts).toMatchObject({ pending: 1, running: 2, succeeded: 3, failed: 4, timedOut: 5, aborted: 6, total: 21 });
    expect(executionCounts).toMatchObject({ pending: 0, running: 1, succeeded: 1, failed: 1, timedOut: 1, aborted: 1, total: 5 });
    const with2 = { children: 'SSFFSSSSSS', toleratedFailureCount: 2, toleratedFailurePercentage: 10 } as MapRunRecord;
    expect(exceeded({ ...with2, byCount: true })).toBe(false);
    expect(exceeded({ ...with2, byPercentage: true })).toBe(true);
    expect(exceeded({ ...with2, byCount: true, byPercentage: true })).toBe(true);
    expect(exceeded({ ...with2, toleratedFailurePercentage: 20, byPercentage: true })).toBe(false);
    expect(exceeded({ ...with2, children: 'SSSS' })).toBe(false);
    expect(exceeded({ ...with2, toleratedFailureCount: 0, children: 'SF' })).toBe(true);
  });
});
