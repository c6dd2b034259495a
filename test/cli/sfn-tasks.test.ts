import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { until } from '../helpers/until.js';
import { fault, ok, okJson, usage } from './sfn-helpers.js';

/* `actorflow sfn send-task-success | send-task-failure | heartbeat` against a test engine: a worker's answers from a shell. */
let e: TestEngine;
let activityArn: string;
let stateMachineArn: string;
const tag = `${process.pid}`;
const cli = (...args: string[]) => runCliProcess([...args, '--nats', e.url]);
const call = <T = Record<string, any>>(action: string, input: object) => e.client.call<T>(action, input);
const status = async (executionArn: string) => (await call<{ status: string; output?: string; error?: string }>('DescribeExecution', { executionArn }));

/** Starts an execution and takes its activity task: the token a worker would hold. */
async function task(): Promise<{ executionArn: string; taskToken: string }> {
  const { executionArn } = await call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{"n":1}' });
  const t = await call<{ taskToken: string }>('GetActivityTask', { activityArn, workerName: 'cli-test' });
  expect(t.taskToken).toBeTruthy();
  return { executionArn, taskToken: t.taskToken };
}

beforeAll(async () => {
  e = await startTestEngine();
  ({ activityArn } = await call<{ activityArn: string }>('CreateActivity', { name: `cli-work-${tag}` }));
  ({ stateMachineArn } = await call<{ stateMachineArn: string }>('CreateStateMachine', {
    name: `cli-tasks-${tag}`, roleArn: 'arn:aws:iam::000000000000:role/cli',
    definition: JSON.stringify({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, HeartbeatSeconds: 60, End: true } } }),
  }));
}, 30_000);
afterAll(async () => { await e?.stop(); });

describe('actorflow sfn task answers', { timeout: 60_000 }, () => {
  it('heartbeat then send-task-success completes the task; bad tokens and bad output are refused', async () => {
    const t = await task();
    const [beat, badBeat, badOutput] = await Promise.all([
      cli('sfn', 'heartbeat', '--task-token', t.taskToken, '--json'), cli('sfn', 'heartbeat', '--task-token', 'forged'),
      cli('sfn', 'send-task-success', '--task-token', t.taskToken, '--output', '{nope'),
    ]);
    expect(okJson(beat)).toEqual({ sent: 'SendTaskHeartbeat', taskToken: t.taskToken });
    fault(badBeat, 'InvalidToken');
    usage(badOutput, /--output must be JSON/);
    const history = await call<{ events: { type: string }[] }>('GetExecutionHistory', { executionArn: t.executionArn });
    expect(history.events.map((x) => x.type)).not.toContain('ActivitySucceeded');

    expect(ok(await cli('sfn', 'send-task-success', '--task-token', t.taskToken, '--output', '{"done":true}'))).toMatch(/^task .{24}… succeeded$/m);
    await until(async () => (await status(t.executionArn)).status === 'SUCCEEDED', { message: 'the execution to succeed' });
    expect((await status(t.executionArn)).output).toBe('{"done":true}');
    // The task is closed now: a second answer is refused as AWS refuses it.
    fault(await cli('sfn', 'send-task-success', '--task-token', t.taskToken, '--output', '{}'), 'TaskTimedOut');
  });

  it('send-task-failure fails the execution with the error and cause; without --task-token it is bad usage', async () => {
    const t = await task();
    const [failed, missing] = await Promise.all([
      cli('sfn', 'send-task-failure', '--task-token', t.taskToken, '--error', 'Cli.Declined', '--cause', 'no stock'),
      cli('sfn', 'send-task-failure', '--error', 'X'),
    ]);
    expect(ok(failed)).toMatch(/^task .{24}… failed$/m);
    usage(missing, /missing required option --task-token/);
    await until(async () => (await status(t.executionArn)).status === 'FAILED', { message: 'the execution to fail' });
    expect(await status(t.executionArn)).toMatchObject({ error: 'Cli.Declined', cause: 'no stock' });
  });
});
