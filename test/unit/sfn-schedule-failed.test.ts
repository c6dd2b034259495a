import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnExecutionOutput, SfnRecord } from '../../src/sfn/compile/contract.js';
import { executionInput, SFN_T0, testHooks } from '../helpers/sfn-driver.js';
import { A } from './sfn-case-builders.js';

/** Runs `definition` until its first ActivityScheduled, then answers it with sfn.activity.scheduleFailed. */
function scheduleFails(definition: object, error: string, cause: string) {
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const records: SfnRecord[] = [];
  const { machine } = compileStateMachine(parseDefinition(JSON.stringify(definition)), { clock, hooks: testHooks((_id, r) => { records.push(r); }, {}) });
  const actor = createActor(machine, { id: 'root', clock, input: executionInput({ a: 1 }) }).start();
  const key = records.find((r) => r.type === 'ActivityScheduled')!.task!.key;
  actor.send({ type: 'sfn.activity.scheduleFailed', key, error, cause });
  return { output: actor.getSnapshot().output as SfnExecutionOutput, types: records.map((r) => r.type), records };
}

describe('sfn.activity.scheduleFailed (the activity does not exist)', () => {
  it('fails the execution at once with the error and cause given, past Catch States.ALL, recording nothing for the task', () => {
    const r = scheduleFails({
      StartAt: 'T', States: { T: { Type: 'Task', Resource: A, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'C' }], End: true }, C: { Type: 'Succeed' } },
    }, 'States.Runtime', 'The activity is gone.');
    expect(r.output).toEqual({ status: 'FAILED', error: 'States.Runtime', cause: 'The activity is gone.' });
    // The host withdraws the ActivityScheduled before it is stored (AWS: TaskStateEntered, ExecutionFailed).
    expect(r.types).toEqual(['TaskStateEntered', 'ActivityScheduled', 'ExecutionFailed']);
    expect(r.records[2]).toMatchObject({ details: { error: 'States.Runtime', cause: 'The activity is gone.' } });
  });

  it('takes no Retry either', () => {
    const r = scheduleFails({
      StartAt: 'T', States: { T: { Type: 'Task', Resource: A, Retry: [{ ErrorEquals: ['States.ALL'] }], End: true } },
    }, 'States.Runtime', 'The activity is gone.');
    expect(r.output).toEqual({ status: 'FAILED', error: 'States.Runtime', cause: 'The activity is gone.' });
    expect(r.types).toEqual(['TaskStateEntered', 'ActivityScheduled', 'ExecutionFailed']);
  });

  it('is ignored for a key that is not the waiting task', () => {
    const clock = new SimulatedClock();
    clock.set(SFN_T0);
    const records: SfnRecord[] = [];
    const { machine } = compileStateMachine(parseDefinition(JSON.stringify({ StartAt: 'T', States: { T: { Type: 'Task', Resource: A, End: true } } })), { clock, hooks: testHooks((_id, r) => { records.push(r); }, {}) });
    const actor = createActor(machine, { id: 'root', clock, input: executionInput({}) }).start();
    actor.send({ type: 'sfn.activity.scheduleFailed', key: 'root#99', error: 'States.Runtime', cause: 'x' });
    expect(actor.getSnapshot().status).toBe('active');
    expect(records.map((r) => r.type)).toEqual(['TaskStateEntered', 'ActivityScheduled']);
  });
});
