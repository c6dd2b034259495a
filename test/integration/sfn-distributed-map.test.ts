import {
  DescribeExecutionCommand, DescribeMapRunCommand, ListExecutionsCommand, ListMapRunsCommand, StartExecutionCommand, StopExecutionCommand, UpdateMapRunCommand,
  type ExecutionListItem, type SFNClient,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { createMachine, fullHistory, rejection, sfnHttpEngineForFile, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/*
 * The Distributed Map through @aws-sdk/client-sfn: each item runs as a child execution of a map
 * run, at most MaxConcurrency at once (measured from the children's own start and stop dates),
 * results in item order, the tolerated failures, and the map-run actions.
 */

const h = sfnHttpEngineForFile();

/** The item processor: waits `wait` seconds, fails on `{ "fail": true }`, else answers its item doubled. */
const processor = (wait: number) => ({
  ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
  StartAt: 'Check',
  States: {
    Check: { Type: 'Choice', Choices: [{ Variable: '$.fail', BooleanEquals: true, Next: 'Broken' }], Default: 'Pause' },
    Pause: { Type: 'Wait', Seconds: wait, Next: 'Double' },
    Double: { Type: 'Pass', Parameters: { 'n.$': '$.n', 'twice.$': 'States.MathAdd($.n, $.n)' }, End: true },
    Broken: { Type: 'Fail', Error: 'Item.Broken', Cause: 'the item said so' },
  },
});

const distributed = (map: object, wait = 1) => ({
  StartAt: 'Fan',
  States: { Fan: { Type: 'Map', ItemsPath: '$.items', ItemSelector: { 'n.$': '$$.Map.Item.Value.n', 'fail.$': '$$.Map.Item.Value.fail' }, ItemProcessor: processor(wait), End: true, ...map } },
});

const items = (n: number, failing: number[] = []) => ({ items: Array.from({ length: n }, (_, i) => ({ n: i, fail: failing.includes(i) })) });

/** Every child execution of a map run (ListExecutions by mapRunArn, all pages). */
async function children(sfn: SFNClient, mapRunArn: string): Promise<ExecutionListItem[]> {
  const out: ExecutionListItem[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new ListExecutionsCommand({ mapRunArn, nextToken, maxResults: 7 }));
    out.push(...page.executions!);
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

/** The most children that ran at the same time, from their start and stop dates. */
function mostAtOnce(list: ExecutionListItem[]): number {
  const edges = list.flatMap((x) => [[x.startDate!.getTime(), 1], [x.stopDate!.getTime(), -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) { now += d; most = Math.max(most, now); }
  return most;
}

async function run(definition: object, input: object): Promise<{ executionArn: string; mapRunArn: string }> {
  const sfn = h.sfn;
  const sm = await createMachine(sfn, definition);
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: sm, input: JSON.stringify(input) }));
  let mapRunArn = '';
  await until(async () => {
    const runs = await sfn.send(new ListMapRunsCommand({ executionArn }));
    mapRunArn = runs.mapRuns?.[0]?.mapRunArn ?? '';
    return mapRunArn !== '';
  }, { timeoutMs: 15_000, message: 'the map run to start' });
  return { executionArn: executionArn!, mapRunArn };
}

describe('Distributed Map', () => {
  it('runs 20 items as child executions, never more than MaxConcurrency 3 at once, results in order', async () => {
    const sfn = h.sfn;
    const { executionArn, mapRunArn } = await run(distributed({ MaxConcurrency: 3, Label: 'Fan20' }), items(20));
    expect(mapRunArn).toMatch(/^arn:aws:states:[a-z0-9-]+:\d{12}:mapRun:[^/]+\/Fan20:[0-9a-f-]{36}$/);
    const d = await waitClosed(sfn, executionArn, 60_000);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual(Array.from({ length: 20 }, (_, n) => ({ n, twice: 2 * n })));

    const types = (await fullHistory(sfn, executionArn)).map((e) => e.type);
    expect(types).toEqual(['ExecutionStarted', 'MapStateEntered', 'MapStateStarted', 'MapRunStarted', 'MapRunSucceeded', 'MapStateSucceeded', 'MapStateExited', 'ExecutionSucceeded']);
    const started = (await fullHistory(sfn, executionArn)).find((e) => e.type === 'MapRunStarted');
    expect(started?.mapRunStartedEventDetails?.mapRunArn).toBe(mapRunArn);

    const kids = await children(sfn, mapRunArn);
    expect(kids).toHaveLength(20);
    expect(new Set(kids.map((k) => k.name)).size).toBe(20);
    expect(kids.every((k) => k.status === 'SUCCEEDED' && k.mapRunArn === mapRunArn)).toBe(true);
    const most = mostAtOnce(kids);
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThanOrEqual(2);

    const child = await sfn.send(new DescribeExecutionCommand({ executionArn: kids[0]!.executionArn }));
    expect(child.mapRunArn).toBe(mapRunArn);
    expect(child.stateMachineArn).toMatch(/:stateMachine:[^/]+\/Fan20$/);
    expect((await fullHistory(sfn, kids[0]!.executionArn!)).map((e) => e.type).at(-1)).toBe('ExecutionSucceeded');

    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect({ status: m.status, max: m.maxConcurrency, exec: m.executionArn, stopped: m.stopDate instanceof Date }).toEqual({ status: 'SUCCEEDED', max: 3, exec: executionArn, stopped: true });
    expect(m.itemCounts).toMatchObject({ succeeded: 20, total: 20, failed: 0, running: 0, pending: 0 });
    expect(m.executionCounts).toMatchObject({ succeeded: 20, total: 20 });
    const list = await sfn.send(new ListMapRunsCommand({ executionArn }));
    expect(list.mapRuns!.map((r) => r.mapRunArn)).toEqual([mapRunArn]);
    console.log(`distributed map: 20 children, MaxConcurrency 3, at most ${most} at once, ${(d.stopDate!.getTime() - d.startDate!.getTime())} ms`);
  }, 90_000);

  it('fails with States.ExceedToleratedFailureThreshold past ToleratedFailureCount', async () => {
    const sfn = h.sfn;
    const { executionArn, mapRunArn } = await run(distributed({ MaxConcurrency: 2, ToleratedFailureCount: 1 }, 0), items(6, [1, 3]));
    const d = await waitClosed(sfn, executionArn, 30_000);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.ExceedToleratedFailureThreshold' });
    const events = await fullHistory(sfn, executionArn);
    expect(events.map((e) => e.type).slice(-3)).toEqual(['MapRunFailed', 'MapStateFailed', 'ExecutionFailed']);
    expect(events.find((e) => e.type === 'MapRunFailed')?.mapRunFailedEventDetails?.error).toBe('States.ExceedToleratedFailureThreshold');
    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect(m.status).toBe('FAILED');
    expect(m.itemCounts!.failed).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('succeeds within ToleratedFailurePercentage', async () => {
    const sfn = h.sfn;
    const { executionArn, mapRunArn } = await run(distributed({ MaxConcurrency: 4, ToleratedFailurePercentage: 25 }, 0), items(8, [2, 5]));
    const d = await waitClosed(sfn, executionArn, 30_000);
    expect(d.status).toBe('SUCCEEDED');
    const out = JSON.parse(d.output!) as unknown[];
    expect(out).toHaveLength(8);
    expect(out[0]).toEqual({ n: 0, twice: 0 });
    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect({ status: m.status, pct: m.toleratedFailurePercentage, items: m.itemCounts }).toMatchObject({ status: 'SUCCEEDED', pct: 25, items: { succeeded: 6, failed: 2, total: 8 } });
  }, 60_000);

  it('UpdateMapRun raises maxConcurrency on the running map run', async () => {
    const sfn = h.sfn;
    const { executionArn, mapRunArn } = await run(distributed({ MaxConcurrency: 1 }, 2), items(8));
    await until(async () => (await sfn.send(new DescribeMapRunCommand({ mapRunArn }))).executionCounts!.running === 1, { timeoutMs: 10_000 });
    const updatedAt = Date.now();
    await sfn.send(new UpdateMapRunCommand({ mapRunArn, maxConcurrency: 4, toleratedFailureCount: 3 }));
    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect({ max: m.maxConcurrency, count: m.toleratedFailureCount }).toEqual({ max: 4, count: 3 });
    const d = await waitClosed(sfn, executionArn, 60_000);
    expect(d.status).toBe('SUCCEEDED');
    const kids = await children(sfn, mapRunArn);
    // Before the update one ran at a time; after it, four.
    expect(kids.filter((k) => k.startDate!.getTime() < updatedAt)).toHaveLength(1);
    expect(mostAtOnce(kids)).toBe(4);
    const closed = await rejection(sfn.send(new UpdateMapRunCommand({ mapRunArn, maxConcurrency: 2 })));
    expect(closed.name).toBe('ValidationException');
  }, 60_000);

  it('StopExecution of the parent aborts the map run and its running children', async () => {
    const sfn = h.sfn;
    const { executionArn, mapRunArn } = await run(distributed({ MaxConcurrency: 2 }, 30), items(5));
    await until(async () => (await sfn.send(new DescribeMapRunCommand({ mapRunArn }))).executionCounts!.running === 2, { timeoutMs: 10_000 });
    await sfn.send(new StopExecutionCommand({ executionArn }));
    await until(async () => (await sfn.send(new DescribeMapRunCommand({ mapRunArn }))).status === 'ABORTED', { timeoutMs: 15_000, message: 'the map run to abort' });
    const kids = await children(sfn, mapRunArn);
    await until(async () => (await children(sfn, mapRunArn)).every((k) => k.status === 'ABORTED'), { timeoutMs: 15_000, message: 'the children to abort' });
    expect(kids).toHaveLength(2);
    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect(m.itemCounts).toMatchObject({ aborted: 2, pending: 3, running: 0, total: 5 });
  }, 60_000);

  it('answers bad map-run requests with AWS faults', async () => {
    const sfn = h.sfn;
    const { executionArn, mapRunArn } = await run(distributed({}, 0), items(1));
    await waitClosed(sfn, executionArn);
    const unknown = mapRunArn.replace(/:[0-9a-f-]{36}$/, ':00000000-0000-4000-8000-000000000000');
    expect((await rejection(sfn.send(new DescribeMapRunCommand({ mapRunArn: 'arn:aws:states:us-east-1:123456789012:mapRun:nope' })))).name).toBe('InvalidArn');
    expect((await rejection(sfn.send(new DescribeMapRunCommand({ mapRunArn: unknown })))).name).toBe('ResourceNotFound');
    expect((await rejection(sfn.send(new UpdateMapRunCommand({ mapRunArn })))).name).toBe('ValidationException');
    expect((await rejection(sfn.send(new UpdateMapRunCommand({ mapRunArn, toleratedFailurePercentage: 101 })))).name).toBe('ValidationException');
    expect((await rejection(sfn.send(new UpdateMapRunCommand({ mapRunArn: unknown, maxConcurrency: 2 })))).name).toBe('ResourceNotFound');
    expect((await rejection(sfn.send(new ListMapRunsCommand({ executionArn: `${executionArn}x` })))).name).toBe('ExecutionDoesNotExist');
    expect((await rejection(sfn.send(new ListMapRunsCommand({ executionArn: 'arn:aws:states:x' })))).name).toBe('InvalidArn');
    expect((await rejection(sfn.send(new ListExecutionsCommand({ mapRunArn: unknown })))).name).toBe('ResourceNotFound');
    const d = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect({ pct: d.toleratedFailurePercentage, count: d.toleratedFailureCount, max: d.maxConcurrency }).toEqual({ pct: 0, count: 0, max: 0 });
  }, 30_000);

  it('refuses ItemReader, ResultWriter and EXPRESS children at CreateStateMachine', async () => {
    const sfn = h.sfn;
    const reader = await rejection(createMachine(sfn, distributed({ ItemReader: { Resource: 'arn:aws:states:::s3:getObject', Parameters: { Bucket: 'b', Key: 'k' } } })));
    expect(reader.name).toBe('InvalidDefinition');
    expect(reader.message).toContain('ItemReader is not supported');
    const writer = await rejection(createMachine(sfn, distributed({ ResultWriter: { Resource: 'arn:aws:states:::s3:putObject', Parameters: { Bucket: 'b' } } })));
    expect(writer.message).toContain('ResultWriter is not supported');
    const express = distributed({});
    (express.States.Fan.ItemProcessor.ProcessorConfig as { ExecutionType: string }).ExecutionType = 'EXPRESS';
    expect((await rejection(createMachine(sfn, express))).message).toContain('EXPRESS child executions of a Distributed Map are not supported');
  }, 30_000);
});
