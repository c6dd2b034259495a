import {
  CreateStateMachineCommand, DescribeExecutionCommand, GetActivityTaskCommand, GetExecutionHistoryCommand, InvalidExecutionInput, InvalidOutput,
  ListExecutionsCommand, SendTaskSuccessCommand, StartExecutionCommand, StopExecutionCommand, type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionPartition } from '../../src/sfn/execution-lookup.js';
import { executionArn as arnOf } from '../../src/sfn/arns.js';
import type { SfnExecutionRecord } from '../../src/sfn/kind/execution-records.js';
import type { TestEngine } from '../helpers/engine.js';
import { createMachine, compactSfn, freshName, fullHistory, machineWithActivity, oneTask, rejection, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine | undefined;
let e: TestEngine;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  ({ engine: e, sfn } = h);
});
afterAll(async () => { await h?.stop(); });

const machine = (definition: object): Promise<string> => createMachine(sfn, definition);
const start = async (stateMachineArn: string, input: unknown) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }))).executionArn!;
const executionsOf = async (stateMachineArn: string) => (await sfn.send(new ListExecutionsCommand({ stateMachineArn }))).executions!;

/** Every execution of the machine is closed, and each has its ExecutionStarted. */
async function noneRunningWithoutHistory(stateMachineArn: string): Promise<void> {
  for (const x of await executionsOf(stateMachineArn)) {
    expect(x.status).not.toBe('RUNNING');
    expect((await fullHistory(sfn, x.executionArn!))[0]?.type).toBe('ExecutionStarted');
  }
}

const pass = { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } };

describe('Step Functions payload limits as AWS enforces them (256 KiB in UTF-8)', () => {
  it('an input of 262,000 × "é" (524,000 bytes) is refused with InvalidExecutionInput, again on a retry, and nothing is created', async () => {
    const sm = await machine(pass);
    const input = JSON.stringify({ s: 'é'.repeat(262_000 - 10) });
    expect(input.length).toBeLessThanOrEqual(262_144);
    for (let i = 0; i < 2; i += 1) {
      const err = await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn: sm, name: 'same-name', input })));
      expect(err).toBeInstanceOf(InvalidExecutionInput);
      expect(err.message).toContain('262144 bytes');
    }
    expect(await executionsOf(sm)).toEqual([]);
  });

  it('an input nested 20,000 deep is refused with InvalidExecutionInput and the node keeps serving', async () => {
    const sm = await machine(pass);
    const input = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(await rejection(sfn.send(new StartExecutionCommand({ stateMachineArn: sm, input })))).toBeInstanceOf(InvalidExecutionInput);
    expect(await executionsOf(sm)).toEqual([]);
    const ok = await start(sm, { fine: true });
    expect((await waitClosed(sfn, ok)).status).toBe('SUCCEEDED');
  });

  it('a Map over 1,000 items of 150 characters (149 KB, inside 256 KB) runs to SUCCEEDED', async () => {
    const sm = await machine({ StartAt: 'Each', States: { Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: pass, End: true } } });
    const items = Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(150, '.'));
    const x = await start(sm, { items });
    const d = await waitClosed(sfn, x, 60_000);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    expect(JSON.parse(d.output!)).toEqual(items);
    expect((await fullHistory(sfn, x)).length).toBe(4006);
  });

  it('StringSplit and ArrayPartition outputs past the quota fail their execution with States.DataLimitExceeded', async () => {
    const split = await machine({ StartAt: 'Split', States: { Split: { Type: 'Pass', Parameters: { 'p.$': "States.StringSplit($.s, ',')" }, End: true } } });
    const part = await machine({ StartAt: 'Part', States: { Part: { Type: 'Pass', Parameters: { 'p.$': 'States.ArrayPartition($.a, 1)' }, End: true } } });
    for (const x of [await start(split, { s: 'a,'.repeat(80_000) }), await start(part, { a: Array.from({ length: 70_000 }, () => 1) })]) {
      const d = await waitClosed(sfn, x);
      expect(d.status).toBe('FAILED');
      expect(d.error).toBe('States.DataLimitExceeded');
      expect(d.cause).toMatch(/^The state\/task '(Split|Part)' returned a result with a size exceeding the maximum number of bytes service limit\.$/);
    }
    await noneRunningWithoutHistory(split);
    await noneRunningWithoutHistory(part);
  });

  it('a Pass output growing past the message size after a Wait fails the execution; StopExecution then answers', async () => {
    const sm = await machine({
      StartAt: 'Nap',
      States: {
        Nap: { Type: 'Wait', Seconds: 1, Next: 'Grow' },
        Grow: { Type: 'Pass', Parameters: { 'a.$': '$.s', 'b.$': '$.s', 'c.$': '$.s', 'd.$': '$.s', 'e.$': '$.s' }, End: true },
      },
    });
    const x = await start(sm, { s: 'x'.repeat(200_000) });
    const d = await waitClosed(sfn, x);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.DataLimitExceeded' });
    expect(compactSfn(await fullHistory(sfn, x))).toBe('1 ExecutionStarted(0) / 2 WaitStateEntered(0) / 3 WaitStateExited(2) / 4 PassStateEntered(3) / 5 ExecutionFailed(4)');
    await sfn.send(new StopExecutionCommand({ executionArn: x }));
    await noneRunningWithoutHistory(sm);
  });

  it('SendTaskSuccess with an output over 256 KiB in UTF-8 is refused with InvalidOutput; the task stays open for a correct answer', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
    const x = await start(stateMachineArn, {});
    const t = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'w' }));
    const big = JSON.stringify('é'.repeat(200_000));
    const err = await rejection(sfn.send(new SendTaskSuccessCommand({ taskToken: t.taskToken!, output: big })));
    expect(err).toBeInstanceOf(InvalidOutput);
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: x }))).status).toBe('RUNNING');
    await sfn.send(new SendTaskSuccessCommand({ taskToken: t.taskToken!, output: '{"ok":true}' }));
    const d = await waitClosed(sfn, x);
    expect({ status: d.status, output: d.output }).toEqual({ status: 'SUCCEEDED', output: '{"ok":true}' });
  });

  it('a record left RUNNING without history (a crash between create and first append) is started when touched: StopExecution answers', async () => {
    const sm = await machine({ StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 3600, End: true } } });
    const name = freshName('orphan');
    const executionArn = arnOf(e.node.ctx, sm.split(':').at(-1)!, name);
    const smRec = await sfn.send(new DescribeExecutionCommand({ executionArn: await start(sm, {}) }));
    const rec: SfnExecutionRecord = {
      executionArn, stateMachineArn: sm, stateMachineName: sm.split(':').at(-1)!, name, status: 'RUNNING', startDate: Date.now(),
      input: '{}', partition: executionPartition(e.node.ctx, executionArn), definition: JSON.stringify({ StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 3600, End: true } } }),
      roleArn: SFN_ROLE,
    };
    expect(smRec.status).toBe('RUNNING');
    expect(await e.node.ctx.sfnExecutions!.create(rec)).toBe(true);
    await sfn.send(new StopExecutionCommand({ executionArn }));
    const d = await waitClosed(sfn, executionArn);
    expect(d.status).toBe('ABORTED');
    expect((await fullHistory(sfn, executionArn)).map((x) => x.type)).toEqual(['ExecutionStarted', 'WaitStateEntered', 'ExecutionAborted']);
  });

  it('a Map of 10,000 items keeps other requests answering while it runs, and its history stays within 25,000 events', async () => {
    const sm = await machine({ StartAt: 'Each', States: { Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: pass, End: true } } });
    const other = await machine(pass);
    let worstGap = 0;
    let last = performance.now();
    const tick = setInterval(() => { const now = performance.now(); worstGap = Math.max(worstGap, now - last); last = now; }, 10);
    let worstCall = 0;
    try {
      const x = await start(sm, { items: Array.from({ length: 10_000 }, (_, i) => i) });
      for (let status = 'RUNNING'; status === 'RUNNING';) {
        const t0 = performance.now();
        await sfn.send(new ListExecutionsCommand({ stateMachineArn: other }));
        status = (await sfn.send(new DescribeExecutionCommand({ executionArn: x }))).status!;
        worstCall = Math.max(worstCall, performance.now() - t0);
      }
      const d = await sfn.send(new DescribeExecutionCommand({ executionArn: x }));
      expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.Runtime' });
      // The last event (one page, newest first: paging all 25,000 events is slow and not what is tested).
      const lastEvent = (await sfn.send(new GetExecutionHistoryCommand({ executionArn: x, reverseOrder: true, maxResults: 1 }))).events![0]!;
      expect(lastEvent.type).toBe('ExecutionFailed');
      expect(lastEvent.id).toBeLessThanOrEqual(25_000);
    } finally {
      clearInterval(tick);
    }
    // Before: one block of 28 s. The bound is generous for a loaded 2-core machine; a turn of 20
    // iterations is a few ms of work (see test/bench/sfn-wide-map.bench.ts for the figures).
    expect(worstGap).toBeLessThan(1500);
    expect(worstCall).toBeLessThan(3000);
  }, 180_000);
});

