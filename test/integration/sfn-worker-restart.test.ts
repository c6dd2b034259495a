import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineNode } from '../../src/server.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { isFault } from '../../src/protocol/faults.js';
import { runningKey } from '../../src/sfn/kind/execution-records.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

const env = useNodesOnOneNats();
const { nodes, startEngine } = env;
let client: ActorFlowClient;
beforeAll(() => { client = env.client; });

interface Ev { id: number; type: string; previousEventId: number; timestamp: number; [k: string]: unknown }

async function history(executionArn: string): Promise<Ev[]> {
  return (await client.call<{ events: Ev[] }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events;
}
const status = async (executionArn: string) => (await client.call<{ status: string; output?: string; error?: string; cause?: string }>('DescribeExecution', { executionArn }));

async function machine(definition: object): Promise<string> {
  const r = await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('sm'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) });
  return r.stateMachineArn;
}
/** The running-executions index (`r.<partition>.<sm>.<name>` keys) as execution names. */
async function indexed(node: EngineNode): Promise<string[]> {
  const names: string[] = [];
  for await (const k of await node.nats.sfnExecutions.keys('r.>')) names.push(k.split('.').at(-1)!);
  return names;
}
const nameOf = (executionArn: string) => executionArn.split(':').at(-1)!;

const start = async (stateMachineArn: string, input: object) =>
  (await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: JSON.stringify(input) })).executionArn;

describe('Step Functions activity worker over NATS, and a restart', () => {
  it('the SDK worker answers success with the handler result and failure with err.name / err.message', async () => {
    await startEngine();
    const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const sm = await machine({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } });
    const worker = startSfnActivityWorker(client, {
      activityArn, workerName: 'sdk-worker', concurrency: 2, pollTimeoutMs: 1000,
      handler: async (input) => {
        const { n } = input as { n: number };
        if (n < 0) { const err = new Error('negative input'); err.name = 'BadNumber'; throw err; }
        return { doubled: n * 2 };
      },
    });
    try {
      const ok = await start(sm, { n: 21 });
      const bad = await start(sm, { n: -1 });
      await until(async () => (await status(ok)).status !== 'RUNNING' && (await status(bad)).status !== 'RUNNING', { timeoutMs: 10_000 });
      expect(await status(ok)).toMatchObject({ status: 'SUCCEEDED', output: '{"doubled":42}' });
      expect(await status(bad)).toMatchObject({ status: 'FAILED', error: 'BadNumber', cause: 'negative input' });
      expect((await history(ok)).find((e) => e.type === 'ActivityStarted')!.activityStartedEventDetails).toEqual({ workerName: 'sdk-worker' });
      // Closed executions are not in the running index.
      const index = await indexed(nodes[0]!);
      expect(index).not.toContain(nameOf(ok));
      expect(index).not.toContain(nameOf(bad));
    } finally {
      await worker.stop();
    }
  });

  it('a new node on the same NATS finishes a started activity and fires a pending Wait at its deadline', async () => {
    const first = nodes[0] ?? await startEngine();
    const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: freshName('act') });
    const taskSm = await machine({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } });
    const waitSm = await machine({ StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 4, Next: 'Done' }, Done: { Type: 'Succeed' } } });
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    let handled = 0;
    const worker = startSfnActivityWorker(client, {
      activityArn, pollTimeoutMs: 1000,
      handler: async (input) => { handled++; await released; return { got: input }; },
    });
    try {
      const taskRun = await start(taskSm, { parcel: 1 });
      const waitRun = await start(waitSm, {});
      await until(async () => (await history(taskRun)).some((e) => e.type === 'ActivityStarted'), { timeoutMs: 10_000 });
      expect((await history(waitRun)).map((e) => e.type)).toEqual(['ExecutionStarted', 'WaitStateEntered']);
      expect(await indexed(first)).toEqual(expect.arrayContaining([nameOf(taskRun), nameOf(waitRun)]));
      await first.stop();
      nodes.splice(nodes.indexOf(first), 1);
      await startEngine();
      release();
      await until(async () => (await status(taskRun)).status === 'SUCCEEDED', { timeoutMs: 15_000 });
      expect((await status(taskRun)).output).toBe('{"got":{"parcel":1}}');
      expect(handled).toBe(1);
      await until(async () => (await status(waitRun)).status === 'SUCCEEDED', { timeoutMs: 15_000 });
      const h = await history(waitRun);
      const entered = h.find((e) => e.type === 'WaitStateEntered')!;
      const exited = h.find((e) => e.type === 'WaitStateExited')!;
      expect(Math.abs((exited.timestamp - entered.timestamp) - 4)).toBeLessThanOrEqual(1);
      expect(h.map((e) => e.type)).toEqual(['ExecutionStarted', 'WaitStateEntered', 'WaitStateExited', 'SucceedStateEntered', 'SucceedStateExited', 'ExecutionSucceeded']);
      const index = await indexed(nodes.at(-1)!);
      expect(index).not.toContain(nameOf(taskRun));
      expect(index).not.toContain(nameOf(waitRun));
    } finally {
      release();
      await worker.stop();
    }
  });

  it('recovery skips and removes an index key whose execution closed (a crash between the record update and the index delete)', async () => {
    const node = nodes[0] ?? await startEngine();
    const sm = await machine({ StartAt: 'P', States: { P: { Type: 'Pass', End: true } } });
    const name = freshName('x');
    const executionArn = (await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn: sm, name, input: '{}' })).executionArn;
    await until(async () => (await status(executionArn)).status === 'SUCCEEDED', { timeoutMs: 10_000 });
    expect(await indexed(node)).not.toContain(name);
    // A second start with the name of a closed execution is refused and leaves no index key.
    const refused = await client.call('StartExecution', { stateMachineArn: sm, name, input: '{"other":1}' }).catch((err: unknown) => err);
    expect(isFault(refused, 'ExecutionAlreadyExists')).toBe(true);
    expect(await indexed(node)).not.toContain(name);
    const rec = (await node.ctx.sfnExecutions!.get(sm.split(':').at(-1)!, name))!;
    await node.nats.sfnExecutions.put(runningKey(rec), new Uint8Array([0x80]));
    expect(await indexed(node)).toContain(name);
    await node.stop();
    nodes.splice(nodes.indexOf(node), 1);
    const next = await startEngine();
    expect(await indexed(next)).not.toContain(name);
    expect((await status(executionArn)).status).toBe('SUCCEEDED');
  });
});
