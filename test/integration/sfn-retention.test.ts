import {
  DescribeExecutionCommand, ExecutionDoesNotExist, GetExecutionHistoryCommand, ListExecutionsCommand, StartExecutionCommand, type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config.js';
import { encode } from '../../src/protocol/codec.js';
import { executionKey, runningKey, type SfnExecutionRecord } from '../../src/sfn/kind/execution-records.js';
import { SFN_DOMAIN } from '../../src/sfn/kind/sfn-host.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { fullHistory, machineWithActivity, rejection, sfnClient, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/* Closed Step Functions executions leave after AF_SFN_RETENTION_DAYS (here a short override: 4 s). */

const RETENTION_MS = 4000;
let e: TestEngine;
let sfn: SFNClient;
beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: {} }, node: { sfnRetentionDays: RETENTION_MS / 86_400_000 } });
  sfn = sfnClient(e.node.http!.port);
}, 30_000);
afterAll(async () => {
  sfn?.destroy();
  await e?.stop();
});

/** Succeed on `{"outcome":"succeed"}`, else a Task on an activity nobody polls (RUNNING). */
const routed = (activityArn: string) => ({
  StartAt: 'Route',
  States: {
    Route: { Type: 'Choice', Default: 'Work', Choices: [{ Variable: '$.outcome', StringEquals: 'succeed', Next: 'Done' }] },
    Done: { Type: 'Succeed' },
    Work: { Type: 'Task', Resource: activityArn, End: true },
  },
});

const start = async (stateMachineArn: string, name: string, outcome: string) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify({ outcome }) }))).executionArn!;
const listed = async (stateMachineArn: string, statusFilter?: 'SUCCEEDED' | 'RUNNING' | 'ABORTED') =>
  (await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter }))).executions!.map((x) => `${x.name} ${x.status}`);
const describeOrGone = (executionArn: string) => sfn.send(new DescribeExecutionCommand({ executionArn })).catch((err: unknown) => err);
const smNameOf = (stateMachineArn: string) => stateMachineArn.slice(stateMachineArn.lastIndexOf(':') + 1);

describe('retention of closed Step Functions executions', () => {
  it('a closed execution is gone after its retention (record, history, listing); a running one is untouched', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, routed);
    const smName = smNameOf(stateMachineArn);
    const running = await start(stateMachineArn, 'waits', 'work');
    const done = await start(stateMachineArn, 'done', 'succeed');
    const closed = await sfn.send(new DescribeExecutionCommand({ executionArn: done }));
    expect(closed.status).toBe('SUCCEEDED');
    const expireAt = closed.stopDate!.getTime() + RETENTION_MS;
    const { nats, ctx } = e.node;
    const rec = (await ctx.sfnExecutions!.get(smName, 'done'))!;
    const history = nats.subjects.sfnHistory(rec.partition, smName, 'done');
    const visibility = nats.subjects.sfnVisibility(smName, 'done');
    expect(await ctx.store.readLast(history)).toBeDefined();
    expect(await nats.jsm.streams.getMessage(nats.subjects.streams.visibility, { last_by_subj: visibility })).toBeTruthy();
    const runningEvents = (await fullHistory(sfn, running)).length;

    // Within the retention everything stays (unless this machine was too slow to look in time).
    await new Promise((r) => setTimeout(r, RETENTION_MS / 2));
    const early = await describeOrGone(done);
    if (early instanceof ExecutionDoesNotExist) expect(Date.now()).toBeGreaterThanOrEqual(expireAt);
    else expect(await listed(stateMachineArn)).toEqual(['done SUCCEEDED', 'waits RUNNING']);

    await until(async () => (await describeOrGone(done)) instanceof ExecutionDoesNotExist, { timeoutMs: 30_000, message: 'the closed execution to be purged' });
    expect(Date.now()).toBeGreaterThanOrEqual(expireAt);
    expect(await rejection(sfn.send(new GetExecutionHistoryCommand({ executionArn: done })))).toBeInstanceOf(ExecutionDoesNotExist);
    expect(await ctx.store.readLast(history)).toBeUndefined();
    expect(await nats.jsm.streams.getMessage(nats.subjects.streams.visibility, { last_by_subj: visibility })).toBeNull();
    expect(await ctx.sfnExecutions!.get(smName, 'done')).toBeUndefined();
    expect(await listed(stateMachineArn)).toEqual(['waits RUNNING']);
    expect(await listed(stateMachineArn, 'SUCCEEDED')).toEqual([]);

    // The running execution: described, listed and its history whole, a retention later still.
    await new Promise((r) => setTimeout(r, RETENTION_MS));
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: running }))).status).toBe('RUNNING');
    expect(await listed(stateMachineArn, 'RUNNING')).toEqual(['waits RUNNING']);
    expect((await fullHistory(sfn, running)).length).toBe(runningEvents);

    // The purged name may be taken again: the new execution is listed once.
    await start(stateMachineArn, 'done', 'succeed');
    expect(await listed(stateMachineArn)).toEqual(['done SUCCEEDED', 'waits RUNNING']);
  }, 60_000);

  it('a close cut short before its visibility and retention were recorded is completed at recovery', async () => {
    const { stateMachineArn } = await machineWithActivity(sfn, routed);
    const smName = smNameOf(stateMachineArn);
    const { nats, ctx, router } = e.node;
    const records = ctx.sfnExecutions!;
    const executionArn = stateMachineArn.replace(':stateMachine:', ':execution:') + ':cut';
    const rec: SfnExecutionRecord = {
      executionArn, stateMachineArn, stateMachineName: smName, name: 'cut', status: 'RUNNING', startDate: Date.now(), input: '{}',
      partition: router.partitionOf(SFN_DOMAIN, executionArn), definition: '{}', roleArn: SFN_ROLE,
    };
    expect(await records.create(rec)).toBe(true);
    expect(await listed(stateMachineArn)).toEqual(['cut RUNNING']);
    // The closing KV write happened, then the node died: nothing else was told.
    await nats.sfnExecutions.put(executionKey(smName, 'cut'), encode({ ...rec, status: 'ABORTED', stopDate: Date.now() }));
    expect(await listed(stateMachineArn)).toEqual(['cut RUNNING']);
    expect((await nats.sfnExecutions.get(runningKey(rec)))?.operation).toBe('PUT');

    // Recovery of the partition reads its running index: the closed record's effects are recorded, then its key goes.
    expect((await records.running(rec.partition)).map((r) => r.name)).not.toContain('cut');
    expect(await listed(stateMachineArn)).toEqual(['cut ABORTED']);
    expect((await nats.sfnExecutions.get(runningKey(rec)))?.operation).not.toBe('PUT');
    await until(async () => (await describeOrGone(executionArn)) instanceof ExecutionDoesNotExist, { timeoutMs: 30_000, message: 'the recovered close to be purged' });
    expect(await listed(stateMachineArn)).toEqual([]);
  }, 60_000);

  it('reads AF_SFN_RETENTION_DAYS: 90 days by default, fractions allowed, nothing at or below 0', () => {
    expect(resolveOptions({}, {}).sfnRetentionMs).toBe(90 * 86_400_000);
    expect(resolveOptions({}, { AF_SFN_RETENTION_DAYS: '7' }).sfnRetentionMs).toBe(7 * 86_400_000);
    expect(resolveOptions({ sfnRetentionDays: 0.5 }, {}).sfnRetentionMs).toBe(43_200_000);
    for (const bad of ['0', '-1', 'abc', '', '36501']) {
      expect(() => resolveOptions({}, { AF_SFN_RETENTION_DAYS: bad }), bad).toThrow(/AF_SFN_RETENTION_DAYS/);
    }
  });
});
