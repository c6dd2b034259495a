import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnRecord } from '../../src/sfn/compile/contract.js';
import { executionInput, SFN_T0, testHooks } from '../helpers/sfn-driver.js';

const A = 'arn:aws:states:us-east-1:123456789012:activity:work';
const definition = {
  StartAt: 'Check.Order',
  TimeoutSeconds: 3600,
  States: {
    'Check.Order': { Type: 'Choice', Choices: [{ Variable: '$.ok', BooleanEquals: true, Next: 'Ship' }], Default: 'Reject' },
    Ship: { Type: 'Task', Resource: A, TimeoutSeconds: 60, HeartbeatSeconds: 10, Retry: [{ ErrorEquals: ['States.Timeout'] }], Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Reject' }], Next: 'Fan' },
    Fan: { Type: 'Parallel', Branches: [{ StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 5, End: true } } }], Next: 'Each' },
    Each: { Type: 'Map', ItemProcessor: { StartAt: 'Item', States: { Item: { Type: 'Pass', End: true } } }, Next: 'Done' },
    Done: { Type: 'Succeed' },
    Reject: { Type: 'Fail', Error: 'Rejected' },
  },
};

function compile() {
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const records: SfnRecord[] = [];
  const compiled = compileStateMachine(parseDefinition(JSON.stringify(definition)), { clock, hooks: testHooks((_id, r) => { records.push(r); }, {}) });
  return { clock, records, machine: compiled.machine };
}

describe('compiled machine as XState JSON', () => {
  it('machine.toJSON() survives JSON and names every ASL state, with the internal final states', () => {
    const { machine } = compile();
    const json = JSON.parse(JSON.stringify(machine.toJSON())) as { id: string; states: Record<string, { id: string; states?: Record<string, unknown> }> };
    expect(json.id).toBe('sfn');
    // `$begin` routes to StartAt, or to where a redrive starts again.
    expect(Object.keys(json.states)).toEqual(['$begin', 'Check.Order', 'Ship', 'Fan', 'Each', 'Done', 'Reject', '$succeeded', '$failed', '$timedOut', '$aborted']);
    expect(json.states.Ship.id).toBe('sfn.Ship');
    expect(Object.keys(json.states.Ship.states!)).toEqual(['run', 'scheduled', 'started', 'settle', 'retrying']);
  });

  it('a running execution persists as JSON with its spawned children', () => {
    const { machine, clock } = compile();
    const actor = createActor(machine, { id: 'root', clock, input: executionInput({ ok: true }) }).start();
    const key = (actor.getSnapshot().context as { task: { key: string } }).task.key;
    actor.send({ type: 'sfn.activity.started', key, workerName: 'w' });
    actor.send({ type: 'sfn.activity.succeeded', key, output: [1, 2] });
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as { value: unknown; children: Record<string, { src: string }> };
    expect(persisted.value).toEqual({ Fan: 'running' });
    expect(Object.keys(persisted.children)).toEqual(['root/Fan.2.0']);
    expect(persisted.children['root/Fan.2.0'].src).toBe('Fan:0');
    actor.stop();
  });
});

describe('task events the machine does not expect', () => {
  it('events for unknown or stale keys record nothing and change nothing; a child key is forwarded', () => {
    const { machine, clock, records } = compile();
    const actor = createActor(machine, { id: 'root', clock, input: executionInput({ ok: true }) }).start();
    const before = JSON.stringify(actor.getPersistedSnapshot());
    const n = records.length;
    actor.send({ type: 'sfn.activity.succeeded', key: 'root#99', output: 1 });
    actor.send({ type: 'sfn.activity.started', key: 'nobody#1' });
    actor.send({ type: 'sfn.activity.failed', key: 'root/Fan.9.0#1', error: 'X' });
    expect(records.length).toBe(n);
    expect(JSON.stringify(actor.getPersistedSnapshot())).toBe(before);
    actor.stop();
  });

  it('a retried task ignores the answer to its earlier attempt', () => {
    const { machine, clock, records } = compile();
    const actor = createActor(machine, { id: 'root', clock, input: executionInput({ ok: true }) }).start();
    actor.send({ type: 'sfn.activity.started', key: 'root#1' });
    clock.increment(10_000); // heartbeat timeout → retry after 1 s
    clock.increment(1_000);
    expect(records.filter((r) => r.type === 'ActivityScheduled').map((r) => r.task!.key)).toEqual(['root#1', 'root#2']);
    const n = records.length;
    actor.send({ type: 'sfn.activity.succeeded', key: 'root#1', output: 'late' });
    expect(records.length).toBe(n);
    actor.send({ type: 'sfn.activity.succeeded', key: 'root#2', output: 'fresh' });
    expect(records.slice(n).map((r) => r.type)).toEqual(['ActivitySucceeded', 'TaskStateExited', 'ParallelStateEntered', 'ParallelStateStarted', 'WaitStateEntered']);
    actor.stop();
  });
});
