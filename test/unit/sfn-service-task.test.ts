import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, type AnyActor } from 'xstate';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnExecutionOutput, SfnInputEvent, SfnRecord } from '../../src/sfn/compile/contract.js';
import { executionInput, SFN_T0, testHooks } from '../helpers/sfn-driver.js';

/*
 * Service integration Tasks in the compiled machine, on the simulated clock: the Task* events and
 * their members, `$$.Task.Token`, the callback's timeouts (heartbeat from TaskSubmitted, AWS's
 * default TimeoutSeconds), Retry/Catch, and a rebuild from a persisted snapshot.
 */

const PUBLISH = 'arn:actorflow:states:::nats:publish.waitForTaskToken';

function run(definition: object, input: unknown = { order: 7 }) {
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const records: SfnRecord[] = [];
  const machine = compileStateMachine(parseDefinition(JSON.stringify(definition)), { clock, hooks: testHooks((_a, r) => records.push(r), input) }).machine;
  const errors: unknown[] = [];
  const boot = (snapshot?: unknown): AnyActor => {
    const a = createActor(machine, { id: 'root', clock, input: executionInput(input), ...(snapshot ? { snapshot: snapshot as never } : {}) });
    a.subscribe({ error: (e) => errors.push(e) });
    return a.start();
  };
  let actor = boot();
  return {
    clock, records,
    send: (e: SfnInputEvent) => actor.send(e),
    /** The key of the last scheduled task. */
    key: () => records.filter((r) => r.task).at(-1)!.task!.key,
    types: () => records.map((r) => r.type),
    of: (type: string) => records.filter((r) => r.type === type).map((r) => r.details),
    output: () => { expect(errors).toEqual([]); return actor.getSnapshot().output as SfnExecutionOutput | undefined; },
    /** Persist, stop and restore the actor (as a host does after a crash), then re-arm. */
    rebuild: () => {
      const snap = unpack(pack(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))));
      actor.stop();
      actor = boot(snap);
      actor.send({ type: 'sfn.rearm' } satisfies SfnInputEvent);
    },
  };
}

const callback = (extra: object = {}) => ({
  StartAt: 'Ask',
  States: {
    Ask: { Type: 'Task', Resource: PUBLISH, Parameters: { Subject: 'orders', Message: { 'token.$': '$$.Task.Token', 'order.$': '$.order' } }, End: true, ...extra },
  },
});

describe('a service integration Task', () => {
  it('records TaskScheduled, TaskStarted, TaskSubmitted, TaskSucceeded with AWS members; the parameters hold $$.Task.Token', () => {
    const r = run(callback({ TimeoutSeconds: 300, HeartbeatSeconds: 60 }));
    const key = r.key();
    const [scheduled] = r.of('TaskScheduled');
    expect(scheduled).toEqual({
      resourceType: 'nats', resource: 'publish.waitForTaskToken', region: 'us-east-1',
      parameters: JSON.stringify({ Subject: 'orders', Message: { token: `token:${key}`, order: 7 } }), timeoutInSeconds: 300, heartbeatInSeconds: 60,
    });
    expect(Object.keys(scheduled!)).toEqual(['resourceType', 'resource', 'region', 'parameters', 'timeoutInSeconds', 'heartbeatInSeconds']);
    expect(r.records.find((x) => x.type === 'TaskScheduled')!.task).toMatchObject({ key, state: 'Ask', service: { resourceType: 'nats', action: 'publish', pattern: 'waitForTaskToken' }, deadline: SFN_T0 + 300_000 });
    r.send({ type: 'sfn.activity.started', key });
    r.send({ type: 'sfn.task.submitted', key, output: { Subject: 'af.sfn.out.orders' } });
    r.send({ type: 'sfn.activity.succeeded', key, output: { ok: true } });
    expect(r.types()).toEqual(['TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSubmitted', 'TaskSucceeded', 'TaskStateExited', 'ExecutionSucceeded']);
    expect(r.of('TaskStarted')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken' }]);
    expect(r.of('TaskSubmitted')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken', output: '{"Subject":"af.sfn.out.orders"}', outputDetails: { truncated: false } }]);
    expect(r.of('TaskSucceeded')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken', output: '{"ok":true}', outputDetails: { truncated: false } }]);
    expect(r.output()).toEqual({ status: 'SUCCEEDED', output: { ok: true } });
  });

  it('JSONata reads the token as $states.context.Task.Token; a request-response Task has no token and no default timeout', () => {
    const r = run({
      QueryLanguage: 'JSONata', StartAt: 'Ask',
      States: {
        Ask: { Type: 'Task', Resource: PUBLISH, Arguments: { Subject: 'x', Message: '{% $states.context.Task.Token %}' }, Next: 'Tell' },
        Tell: { Type: 'Task', Resource: 'arn:actorflow:states:::nats:publish', Arguments: { Subject: 'y', Message: '{% $states.input %}' }, End: true },
      },
    });
    const ask = r.key();
    expect(JSON.parse(r.of('TaskScheduled')[0]!.parameters as string)).toEqual({ Subject: 'x', Message: `token:${ask}` });
    // AWS's default TimeoutSeconds of a callback: 99999999 s (not written into TaskScheduled).
    expect(r.records.find((x) => x.type === 'TaskScheduled')!.task!.deadline).toBe(SFN_T0 + 99_999_999_000);
    r.send({ type: 'sfn.activity.started', key: ask });
    r.send({ type: 'sfn.activity.succeeded', key: ask, output: 'done' });
    const tell = r.key();
    expect(r.records.filter((x) => x.type === 'TaskScheduled')[1]!.task!.deadline).toBeUndefined();
    expect(r.of('TaskScheduled')[1]).toEqual({ resourceType: 'nats', resource: 'publish', region: 'us-east-1', parameters: '{"Subject":"y","Message":"done"}' });
    r.send({ type: 'sfn.activity.started', key: tell });
    r.send({ type: 'sfn.activity.succeeded', key: tell, output: { Subject: 'af.sfn.out.y' } });
    expect(r.output()).toEqual({ status: 'SUCCEEDED', output: { Subject: 'af.sfn.out.y' } });
  });

  it('opens the heartbeat window at TaskSubmitted; heartbeats keep it open; a missed one is States.Timeout', () => {
    const r = run(callback({ HeartbeatSeconds: 10 }));
    const key = r.key();
    r.send({ type: 'sfn.activity.started', key });
    // Started, not yet submitted: no heartbeat window runs.
    r.clock.increment(30_000);
    expect(r.types()).not.toContain('TaskTimedOut');
    r.send({ type: 'sfn.task.submitted', key, output: {} });
    for (let i = 0; i < 3; i++) {
      r.clock.increment(8_000);
      r.send({ type: 'sfn.activity.heartbeat', key });
    }
    expect(r.types()).not.toContain('TaskTimedOut');
    r.clock.increment(10_000);
    expect(r.of('TaskTimedOut')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'States.Timeout' }]);
    expect(r.output()).toEqual({ status: 'FAILED', error: 'States.Timeout' });
  });

  it('TimeoutSeconds is States.Timeout, retried by Retry; SendTaskFailure goes to Catch', () => {
    const r = run({
      StartAt: 'Ask',
      States: {
        Ask: {
          Type: 'Task', Resource: PUBLISH, Parameters: { Subject: 's', Message: { 't.$': '$$.Task.Token' } }, TimeoutSeconds: 5,
          Retry: [{ ErrorEquals: ['States.Timeout'], MaxAttempts: 1, IntervalSeconds: 1 }],
          Catch: [{ ErrorEquals: ['Declined'], ResultPath: '$.why', Next: 'Handled' }], End: true,
        },
        Handled: { Type: 'Pass', End: true },
      },
    });
    const first = r.key();
    r.send({ type: 'sfn.activity.started', key: first });
    r.send({ type: 'sfn.task.submitted', key: first, output: {} });
    r.clock.increment(5_000);
    expect(r.of('TaskTimedOut')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'States.Timeout' }]);
    r.clock.increment(1_000);
    const second = r.key();
    expect(second).not.toBe(first);
    // The retry's token names its own task.
    expect(JSON.parse(r.of('TaskScheduled')[1]!.parameters as string)).toEqual({ Subject: 's', Message: { t: `token:${second}` } });
    r.send({ type: 'sfn.activity.started', key: second });
    r.send({ type: 'sfn.activity.failed', key: second, error: 'Declined', cause: 'no stock' });
    expect(r.of('TaskFailed')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'Declined', cause: 'no stock' }]);
    expect(r.output()).toEqual({ status: 'SUCCEEDED', output: { order: 7, why: { Error: 'Declined', Cause: 'no stock' } } });
  });

  it('rebuilt from a persisted snapshot, a submitted callback restarts its heartbeat window and keeps its timeout deadline', () => {
    const r = run(callback({ TimeoutSeconds: 100, HeartbeatSeconds: 20 }));
    const key = r.key();
    r.send({ type: 'sfn.activity.started', key });
    r.send({ type: 'sfn.task.submitted', key, output: {} });
    r.clock.increment(15_000);
    r.rebuild();
    // The window restarted at the rebuild (heartbeats write no history): 15 s after it, still open.
    r.clock.increment(15_000);
    expect(r.types()).not.toContain('TaskTimedOut');
    r.send({ type: 'sfn.activity.heartbeat', key });
    r.rebuild();
    for (let t = 30_000; t < 90_000; t += 10_000) {
      r.clock.increment(10_000);
      r.send({ type: 'sfn.activity.heartbeat', key });
    }
    expect(r.types()).not.toContain('TaskTimedOut');
    // 100 s after scheduling, whatever the rebuilds: TimeoutSeconds.
    r.clock.increment(10_000);
    expect(r.of('TaskTimedOut')).toEqual([{ resourceType: 'nats', resource: 'publish.waitForTaskToken', error: 'States.Timeout' }]);
    expect(r.output()).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  });
});
