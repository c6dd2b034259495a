import {
  CreateActivityCommand, CreateStateMachineCommand, DeleteActivityCommand, DescribeStateMachineCommand, GetActivityTaskCommand,
  GetExecutionHistoryCommand, SFNClient, StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEngine } from '../helpers/engine.js';
import { createMachine, compactSfn, freshName, fullHistory, machineWithActivity, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine | undefined;
let e: TestEngine;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  ({ engine: e, sfn } = h);
});
afterAll(async () => { await h?.stop(); });

const machine = (definition: object): Promise<string> => createMachine(sfn, definition);
const start = async (stateMachineArn: string, input: object = {}) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }))).executionArn!;

describe('Step Functions hardening over HTTP (AWS SDK)', () => {
  it('an endless Pass/Choice loop fails with States.Runtime at 25,000 events, and the node keeps serving', async () => {
    const sm = await machine({
      StartAt: 'Spin',
      States: {
        Spin: { Type: 'Pass', Next: 'Again' },
        Again: { Type: 'Choice', Choices: [{ Variable: '$.stop', BooleanEquals: true, Next: 'Done' }], Default: 'Spin' },
        Done: { Type: 'Succeed' },
      },
    });
    const executionArn = await start(sm, { stop: false });
    const d = await waitClosed(sfn, executionArn, 30_000);
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({
      status: 'FAILED', error: 'States.Runtime', cause: 'The execution reached the maximum number of history events (25000).',
    });
    const last = await sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 1 }));
    expect(last.events![0]).toMatchObject({ id: 25_000, type: 'ExecutionFailed' });
    expect(last.events![0]!.executionFailedEventDetails).toEqual({ error: 'States.Runtime', cause: 'The execution reached the maximum number of history events (25000).' });
    // Stored in several messages (one would pass the message size limit), read back whole and in order.
    const ids: number[] = [];
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000, nextToken, includeExecutionData: false }));
      ids.push(...page.events!.map((x) => x.id!));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(ids).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1));

    // Still serving: a read and a short execution to the end.
    expect((await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: sm }))).status).toBe('ACTIVE');
    const short = await start(sm, { stop: true });
    expect((await waitClosed(sfn, short)).status).toBe('SUCCEEDED');
  }, 60_000);

  it('a Task state whose activity was deleted while the execution waited fails with States.Runtime (not caught by States.ALL)', async () => {
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      StartAt: 'Nap',
      States: {
        Nap: { Type: 'Wait', Seconds: 1, Next: 'Work' },
        Work: { Type: 'Task', Resource: a, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }], End: true },
        Caught: { Type: 'Succeed' },
      },
    }));
    const executionArn = await start(stateMachineArn, { parcel: 1 });
    await sfn.send(new DeleteActivityCommand({ activityArn }));
    const d = await waitClosed(sfn, executionArn);
    const cause = `An error occurred while executing the state 'Work' (entered at the event id #4). The activity ${activityArn} does not exist.`;
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({ status: 'FAILED', error: 'States.Runtime', cause });
    const h = await fullHistory(sfn, executionArn);
    // AWS's sequence: no ActivityScheduled for an activity that does not exist; the execution fails at once.
    expect(compactSfn(h)).toBe('1 ExecutionStarted(0) / 2 WaitStateEntered(0) / 3 WaitStateExited(2) / 4 TaskStateEntered(3)'
      + ' / 5 ExecutionFailed(4)');
    expect(h[4]!.executionFailedEventDetails).toEqual({ error: 'States.Runtime', cause });
    // Nothing was queued for the deleted activity: created again (same ARN), it has no task.
    await sfn.send(new CreateActivityCommand({ name: activityArn.split(':').at(-1)! }));
    const poll = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'late' }), { abortSignal: AbortSignal.timeout(1500) }).catch((err: unknown) => err);
    expect((poll as { taskToken?: string }).taskToken).toBeUndefined();
  });

  it('only the branch on the missing activity fails; its sibling on a live activity was dispatched and its task then closes', async () => {
    const { activityArn: live } = await sfn.send(new CreateActivityCommand({ name: freshName('live') }));
    const { activityArn: gone } = await sfn.send(new CreateActivityCommand({ name: freshName('gone') }));
    const sm = await machine({
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel', End: true,
          Branches: [
            { StartAt: 'L', States: { L: { Type: 'Wait', Seconds: 1, Next: 'LT' }, LT: { Type: 'Task', Resource: live, End: true } } },
            { StartAt: 'G', States: { G: { Type: 'Wait', Seconds: 2, Next: 'GT' }, GT: { Type: 'Task', Resource: gone, End: true } } },
          ],
        },
      },
    });
    const executionArn = await start(sm);
    await sfn.send(new DeleteActivityCommand({ activityArn: gone }));
    const d = await waitClosed(sfn, executionArn);
    expect({ status: d.status, error: d.error }).toEqual({ status: 'FAILED', error: 'States.Runtime' });
    expect(d.cause).toMatch(/^An error occurred while executing the state 'GT' \(entered at the event id #\d+\)\. The activity .+ does not exist\.$/);
    const types = (await fullHistory(sfn, executionArn)).map((x) => x.type);
    expect(types.filter((t) => t === 'ActivityScheduled')).toHaveLength(1);
    expect(types).not.toContain('ActivityScheduleFailed');
    expect(types.slice(-3)).toEqual(['TaskStateEntered', 'ParallelStateFailed', 'ExecutionFailed']);
    // The live branch's task was removed from its list when the execution ended.
    const poll = await sfn.send(new GetActivityTaskCommand({ activityArn: live, workerName: 'late' }), { abortSignal: AbortSignal.timeout(1500) }).catch((err: unknown) => err);
    expect((poll as { taskToken?: string }).taskToken).toBeUndefined();
  });
});
