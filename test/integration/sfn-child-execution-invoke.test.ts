import {
  CreateStateMachineAliasCommand, DescribeExecutionCommand, PublishStateMachineVersionCommand, StartExecutionCommand, StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceResource, type IntegrationCall } from '../../src/sfn/integrations/integration.js';
import type { ChildWatchDeps } from '../../src/sfn/integrations/child-executions.js';
import { childName, depthInName, depthOf, MAX_CHILD_DEPTH, STARTED_BY } from '../../src/sfn/integrations/child-executions-lineage.js';
import { StartExecutionIntegration } from '../../src/sfn/integrations/start-execution.js';
import { createMachine, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

let h: SfnHttpEngine | undefined;
let integration: StartExecutionIntegration;
let calls: string[] = [];
beforeAll(async () => {
  h = await startSfnHttpEngine();
  const node = h.engine.node;
  const deps: ChildWatchDeps = {
    call: async (action, input) => { calls.push(action); return h!.engine.client.call(action, input as object); },
    log: pino({ level: 'silent' }), nc: node.nats.nc, subjects: node.ctx.subjects,
  };
  integration = new StartExecutionIntegration(deps);
});
afterAll(async () => { await h?.stop(); });

const sfn = () => h!.sfn;
const WAIT_FOREVER = { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 600, End: true } } };
const ECHO = { StartAt: 'P', States: { P: { Type: 'Pass', Parameters: { 'got.$': '$' }, End: true } } };
const FAIL = { StartAt: 'F', States: { F: { Type: 'Fail', Error: 'Child.Broke', Cause: 'it broke' } } };

let seq = 0;
/** A running parent execution (a Wait of ten minutes) to invoke the task for; stopped by the caller's test end. */
async function parent(name?: string): Promise<string> {
  const arn = (await sfn().send(new StartExecutionCommand({ stateMachineArn: await createMachine(sfn(), WAIT_FOREVER), name, input: '{}' }))).executionArn!;
  parents.push(arn);
  return arn;
}
const parents: string[] = [];
afterAll(async () => { for (const executionArn of parents) await sfn().send(new StopExecutionCommand({ executionArn })).catch(() => undefined); });

function taskCall(resource: string, parameters: unknown, executionArn: string, opts: { taskKey?: string; signal?: AbortSignal } = {}): IntegrationCall {
  const resourceArn = `arn:aws:states:::states:${resource}`;
  return {
    resourceArn, service: readServiceResource(resourceArn)!, parameters, executionArn, stateName: 'Start Child',
    taskKey: opts.taskKey ?? `Start Child#${++seq}`, signal: opts.signal ?? new AbortController().signal,
  };
}

const describeChild = (executionArn: string) => sfn().send(new DescribeExecutionCommand({ executionArn }));

describe('states:startExecution invoked against a real engine', () => {
  it('request-response answers ExecutionArn and StartDate (epoch ms); a re-invocation of the attempt finds the same child, running or closed', async () => {
    const sm = await createMachine(sfn(), ECHO);
    const p = await parent();
    const c = taskCall('startExecution', { StateMachineArn: sm, Input: { order: 7, [STARTED_BY]: p } }, p);
    const r = await integration.invoke(c);
    expect(r.ok).toBe(true);
    const out = (r as { output: Record<string, unknown> }).output;
    expect(Object.keys(out)).toEqual(['ExecutionArn', 'StartDate']);
    expect(Number.isInteger(out.StartDate)).toBe(true);
    const childArn = out.ExecutionArn as string;
    const name = childArn.split(':').at(-1)!;
    expect(name).toBe(childName(p, 'Start Child', c.taskKey, 1));
    expect(name.length).toBeLessThanOrEqual(80);
    expect(depthInName(name)).toBe(1);
    const d = await waitClosed(sfn(), childArn);
    expect(JSON.parse(d.input!)).toEqual({ order: 7, [STARTED_BY]: p });
    expect(Math.abs(d.startDate!.getTime() - (out.StartDate as number))).toBeLessThan(1);
    // After a crash the host invokes the same attempt again: the closed child is described, not started twice.
    const again = await integration.invoke({ ...c, signal: new AbortController().signal });
    expect(again).toEqual(r);
  });

  it('.sync answers the child\'s DescribeExecution in PascalCase, sorted, dates in ms, Input and Output as JSON text', async () => {
    const sm = await createMachine(sfn(), ECHO);
    const p = await parent();
    const name = `named-${++seq}`;
    const r = await integration.invoke(taskCall('startExecution.sync', { StateMachineArn: sm, Input: '{"a":1}', Name: name }, p));
    expect(r.ok).toBe(true);
    const out = (r as { output: Record<string, unknown> }).output;
    expect(Object.keys(out)).toEqual(['ExecutionArn', 'Input', 'InputDetails', 'Name', 'Output', 'OutputDetails', 'RedriveCount', 'RedriveStatus',
      'RedriveStatusReason', 'StartDate', 'StateMachineArn', 'Status', 'StopDate']);
    expect(out).toMatchObject({
      Input: '{"a":1}', InputDetails: { Included: true }, Name: name, Output: '{"got":{"a":1}}', OutputDetails: { Included: true },
      RedriveCount: 0, RedriveStatus: 'NOT_REDRIVABLE', RedriveStatusReason: 'Execution is SUCCEEDED and cannot be redriven', StateMachineArn: sm, Status: 'SUCCEEDED',
    });
    expect(Number.isInteger(out.StartDate) && Number.isInteger(out.StopDate)).toBe(true);
    expect(out.StopDate as number).toBeGreaterThanOrEqual(out.StartDate as number);
  });

  it('.sync:2 answers the same with Input and Output as JSON values, through an alias (its version and alias ARNs too)', async () => {
    const sm = await createMachine(sfn(), ECHO);
    const { stateMachineVersionArn } = await sfn().send(new PublishStateMachineVersionCommand({ stateMachineArn: sm }));
    const { stateMachineAliasArn } = await sfn().send(new CreateStateMachineAliasCommand({
      name: 'live', routingConfiguration: [{ stateMachineVersionArn, weight: 100 }],
    }));
    const p = await parent();
    const r = await integration.invoke(taskCall('startExecution.sync:2', { StateMachineArn: stateMachineAliasArn, Input: { a: [1, 2] } }, p));
    expect(r.ok).toBe(true);
    const out = (r as { output: Record<string, unknown> }).output;
    expect(out).toMatchObject({ Input: { a: [1, 2] }, Output: { got: { a: [1, 2] } }, Status: 'SUCCEEDED', StateMachineAliasArn: stateMachineAliasArn, StateMachineVersionArn: stateMachineVersionArn });
    expect(Object.keys(out)).toEqual([...Object.keys(out)].sort());
  });

  it('a child that fails fails the task with States.TaskFailed and its description as the cause', async () => {
    const sm = await createMachine(sfn(), FAIL);
    const p = await parent();
    for (const resource of ['startExecution.sync', 'startExecution.sync:2']) {
      const r = await integration.invoke(taskCall(resource, { StateMachineArn: sm }, p));
      expect(r.ok).toBe(false);
      const { error, cause } = r as { error: string; cause: string };
      expect(error).toBe('States.TaskFailed');
      const described = JSON.parse(cause);
      expect(described).toMatchObject({ Status: 'FAILED', Error: 'Child.Broke', Cause: 'it broke', RedriveStatus: 'REDRIVABLE', StateMachineArn: sm });
      expect(described.Input).toEqual(resource.endsWith(':2') ? {} : '{}');
      expect(described.Output).toBeUndefined();
    }
  });

  /** Invokes `.sync` on a child that waits ten minutes; answers the call, its abort controller and (once started) the child. */
  async function syncChild(p: string, deadline?: number) {
    const sm = await createMachine(sfn(), WAIT_FOREVER);
    const ac = new AbortController();
    const running = integration.invoke({ ...taskCall('startExecution.sync', { StateMachineArn: sm }, p, { signal: ac.signal }), ...(deadline !== undefined ? { deadline } : {}) });
    let childArn = '';
    await until(async () => {
      childArn = (await h!.engine.client.call('ListExecutions', { stateMachineArn: sm })).executions[0]?.executionArn ?? '';
      return childArn !== '';
    });
    parents.push(childArn);
    return { running, ac, childArn };
  }
  const abortCause = (p: string) => `The Task state in AWS Step Functions execution [${p}] which was managing this resource was aborted`;

  it('a task aborted because its parent closed stops its .sync child with AWS\'s cause', async () => {
    const p = await parent();
    const { running, ac, childArn } = await syncChild(p);
    await sfn().send(new StopExecutionCommand({ executionArn: p }));
    ac.abort(new Error('parent stopped'));
    expect(await running).toEqual({ ok: false, error: 'States.Runtime', cause: abortCause(p) });
    const d = await waitClosed(sfn(), childArn);
    expect({ status: d.status, cause: d.cause }).toEqual({ status: 'ABORTED', cause: abortCause(p) });
  });

  it('a task aborted past its deadline (TimeoutSeconds) stops its child too', async () => {
    const p = await parent();
    const { running, ac, childArn } = await syncChild(p, Date.now() + 200);
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    await running;
    expect((await waitClosed(sfn(), childArn)).status).toBe('ABORTED');
  });

  it('a call aborted while its parent runs on (this node letting the parent go) leaves the child running', async () => {
    const p = await parent();
    const { running, ac, childArn } = await syncChild(p);
    ac.abort();
    await running;
    expect((await describeChild(childArn)).status).toBe('RUNNING');
  });

  it('.waitForTaskToken starts the child with the token in its input and answers StartExecution\'s output', async () => {
    const sm = await createMachine(sfn(), WAIT_FOREVER);
    const p = await parent();
    const c = { ...taskCall('startExecution.waitForTaskToken', { StateMachineArn: sm, Input: { token: 'tok-1' } }, p), taskToken: 'tok-1' };
    const r = await integration.invoke(c);
    expect(r.ok).toBe(true);
    const out = (r as { output: { ExecutionArn: string } }).output;
    parents.push(out.ExecutionArn);
    const d = await describeChild(out.ExecutionArn);
    expect({ status: d.status, input: JSON.parse(d.input!) }).toEqual({ status: 'RUNNING', input: { token: 'tok-1' } });
  });

  it('refusals are StepFunctions.<Code>Exception with AWS\'s cause; an unknown parameter is refused before any call', async () => {
    const p = await parent();
    const missing = p.replace(/:execution:.*$/, ':stateMachine:no-such-machine');
    const r1 = await integration.invoke(taskCall('startExecution', { StateMachineArn: missing }, p));
    expect(r1).toMatchObject({ ok: false, error: 'StepFunctions.StateMachineDoesNotExistException' });
    expect((r1 as { cause: string }).cause).toMatch(/^State Machine Does Not Exist: '.*no-such-machine' \(Service: AWSStepFunctions; Status Code: 400; Error Code: StateMachineDoesNotExist; Request ID: [0-9a-f-]{36}; Proxy: null\)$/);
    const sm = await createMachine(sfn(), ECHO);
    const name = `taken-${++seq}`;
    await waitClosed(sfn(), (await sfn().send(new StartExecutionCommand({ stateMachineArn: sm, name, input: '{"x":1}' }))).executionArn!);
    const r2 = await integration.invoke(taskCall('startExecution.sync', { StateMachineArn: sm, Name: name }, p));
    expect(r2).toMatchObject({ ok: false, error: 'StepFunctions.ExecutionAlreadyExistsException' });
    const r3 = await integration.invoke(taskCall('startExecution', { StateMachineArn: sm, Input: 'not json' }, p));
    expect(r3).toMatchObject({ ok: false, error: 'StepFunctions.InvalidExecutionInputException' });
    calls = [];
    const r4 = await integration.invoke(taskCall('startExecution', { StateMachineArn: sm, Foo: 1 }, p));
    expect(r4).toEqual({ ok: false, error: 'States.Runtime', cause: "The field 'Foo' is not supported by Step Functions" });
    expect(calls).toEqual([]);
    expect(integration.check('startExecution', { 'StateMachineArn.$': '$.arn', 'Bar.$': '$.x' })).toBe("The field 'Bar' is not supported by Step Functions");
    expect(integration.check('startExecution', { StateMachineArn: sm, 'Input.$': '$', Name: 'n' })).toBeUndefined();
  });

  it(`refuses a child past depth ${MAX_CHILD_DEPTH} (read from derived names and from the documented input link)`, async () => {
    const sm = await createMachine(sfn(), ECHO);
    // A parent whose derived name says it is at the deepest level already.
    const deep = await parent(`deep.Start_Child.c${MAX_CHILD_DEPTH}.0123456789abcdef0123`);
    calls = [];
    const r = await integration.invoke(taskCall('startExecution.sync', { StateMachineArn: sm }, deep));
    expect(r).toMatchObject({ ok: false, error: 'StepFunctions.ExecutionLimitExceededException' });
    expect((r as { cause: string }).cause).toContain(`nest at most ${MAX_CHILD_DEPTH} deep`);
    expect(calls).not.toContain('StartExecution');
    // A chain linked by AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID, named by the caller: depth by the links.
    const top = await parent();
    const mid = (await sfn().send(new StartExecutionCommand({ stateMachineArn: await createMachine(sfn(), WAIT_FOREVER), input: JSON.stringify({ [STARTED_BY]: top }) }))).executionArn!;
    parents.push(mid);
    const low = (await sfn().send(new StartExecutionCommand({ stateMachineArn: await createMachine(sfn(), WAIT_FOREVER), input: JSON.stringify({ [STARTED_BY]: mid }) }))).executionArn!;
    parents.push(low);
    const deps = { call: (a: string, i: unknown) => h!.engine.client.call(a, i as object) };
    expect(await depthOf(deps, top)).toBe(0);
    expect(await depthOf(deps, low)).toBe(2);
    const atNine = await parent(`x.y.c9.0123456789abcdef0123`);
    const ok = await integration.invoke(taskCall('startExecution', { StateMachineArn: sm }, atNine));
    expect(ok.ok).toBe(true);
    expect(depthInName((ok as { output: { ExecutionArn: string } }).output.ExecutionArn.split(':').at(-1)!)).toBe(MAX_CHILD_DEPTH);
  });
});
