import { createActor, SimulatedClock, type AnyActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnExecutionOutput, SfnInputEvent, SfnRecord } from '../../src/sfn/compile/contract.js';
import type { GraphContext } from '../../src/sfn/compile/graph-context.js';
import { redrivePointOf } from '../../src/sfn/compile/redrive-start.js';
import { executionInput, SFN_T0, testHooks } from '../helpers/sfn-driver.js';

const ACT = 'arn:aws:states:us-east-1:123456789012:activity:work';
const DEFINITION = {
  StartAt: 'Prep',
  States: {
    Prep: { Type: 'Pass', Result: 'p', ResultPath: '$.prep', Next: 'Each' },
    Each: {
      Type: 'Map', ItemsPath: '$.items', End: true,
      ItemSelector: { 'v.$': '$$.Map.Item.Value', 'r.$': '$$.Execution.RedriveCount' },
      ItemProcessor: { StartAt: 'Mark', States: { Mark: { Type: 'Pass', Next: 'Do' }, Do: { Type: 'Task', Resource: ACT, End: true } } },
    },
  },
};

function setup() {
  const records: SfnRecord[] = [];
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const input = { items: ['a', 'b', 'c', 'd'] };
  const { machine } = compileStateMachine(parseDefinition(JSON.stringify(DEFINITION)), { clock, hooks: testHooks((_a, r) => records.push(r), input) });
  return { records, clock, input, machine };
}

/** Answers the tasks scheduled since `from`: `ok(input)` says which succeed (with their input's `v` upper-cased). */
function answer(actor: AnyActor, records: SfnRecord[], from: number, ok: (input: { v: string }) => boolean): Array<{ v: string; r: number }> {
  const send = (e: SfnInputEvent) => actor.send(e);
  const tasks = records.slice(from).filter((r) => r.type === 'ActivityScheduled').map((r) => r.task!);
  for (const t of tasks) send({ type: 'sfn.activity.started', key: t.key });
  // Successes first, so the failure finds them done and the others still running.
  const inputs = tasks.map((t) => ({ key: t.key, input: JSON.parse(t.input) as { v: string; r: number } }));
  for (const t of inputs.filter((t) => ok(t.input))) send({ type: 'sfn.activity.succeeded', key: t.key, output: t.input.v.toUpperCase() });
  const bad = inputs.find((t) => !ok(t.input));
  if (bad) send({ type: 'sfn.activity.failed', key: bad.key, error: 'Boom', cause: 'no' });
  return inputs.map((t) => t.input);
}

describe('the redrive start mode of the root machine', () => {
  it('starts at the failed Map with its input and runs only the iterations that did not succeed, the failed one from its failed state', () => {
    const { records, clock, input, machine } = setup();
    const first = createActor(machine, { id: 'root', clock, input: executionInput(input) }).start();
    expect(answer(first, records, 0, (i) => i.v === 'a' || i.v === 'c').map((i) => i.r)).toEqual([0, 0, 0, 0]);
    const closed = first.getPersistedSnapshot() as unknown as { status: string; output: SfnExecutionOutput; context: GraphContext };
    expect(closed.output).toMatchObject({ status: 'FAILED', error: 'Boom' });
    first.stop();

    // What the host reads back from the stored snapshot.
    const point = redrivePointOf(JSON.parse(JSON.stringify(closed.context)) as GraphContext)!;
    expect(point).toMatchObject({ state: 'Each', input: { items: ['a', 'b', 'c', 'd'], prep: 'p' }, keep: { state: 'Each', results: { 0: 'A', 2: 'C' } } });

    const from = records.length;
    const again = createActor(machine, { id: 'root', clock, input: { ...executionInput(input), redrive: point, redriveCount: 1, redriveTime: SFN_T0 + 1000 } }).start();
    expect(records.slice(from, from + 4).map((r) => [r.type, r.details?.index ?? r.details?.name])).toEqual([
      ['MapStateEntered', 'Each'], ['MapStateStarted', undefined], ['MapIterationStarted', 1], ['MapIterationStarted', 3],
    ]);
    // 'b' failed: its Task runs again with the input it had (RedriveCount 0 then); 'd' was aborted and starts over.
    expect(answer(again, records, from, () => true)).toEqual([{ v: 'b', r: 0 }, { v: 'd', r: 1 }]);
    expect(again.getSnapshot().output).toEqual({ status: 'SUCCEEDED', output: ['A', 'B', 'C', 'D'] });
    // Prep is not run again; the iteration that failed starts again at its Task, the one aborted from its start.
    const passes = records.slice(from).filter((r) => r.type === 'PassStateEntered').map((r) => r.details!.name);
    expect(passes).toEqual(['Mark']);
    expect(records.slice(from).filter((r) => r.type === 'TaskStateEntered').length).toBe(2);
    again.stop();
  });

  it('a visit that keeps every iteration runs none and finishes at once', () => {
    const { records, clock, input, machine } = setup();
    const first = createActor(machine, { id: 'root', clock, input: executionInput(input) }).start();
    answer(first, records, 0, () => true);
    expect(first.getSnapshot().output).toMatchObject({ status: 'SUCCEEDED' });
    first.stop();
    const from = records.length;
    const point = { state: 'Each', input: { items: ['a', 'b'] }, seq: 10, keep: { state: 'Each', results: { 0: 'X', 1: 'Y' } } };
    const again = createActor(machine, { id: 'root', clock, input: { ...executionInput(input), redrive: point, redriveCount: 1, redriveTime: SFN_T0 } }).start();
    expect(records.slice(from).map((r) => r.type)).toEqual(['MapStateEntered', 'MapStateStarted', 'MapStateSucceeded', 'MapStateExited', 'ExecutionSucceeded']);
    expect(again.getSnapshot().output).toEqual({ status: 'SUCCEEDED', output: ['X', 'Y'] });
    again.stop();
  });
});
