import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker, type SfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/**
 * 200 Step Functions executions asleep (each waiting on an activity, then a Wait) when the engine
 * process is SIGKILLed: the restarted process rebuilds them (asleep again), and each one finishes
 * once a worker answers, with a gap-free history and its task scheduled and started once.
 */
const N = 200;
const WAIT_S = 2;
const NODE = 'sfn-crash';
let server: NatsServerHandle;
let client: ActorFlowClient;
let engine: EngineProcess | undefined;
let worker: SfnActivityWorker | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  client = await ActorFlowClient.connect({ servers: server.url });
});
afterAll(async () => {
  await worker?.stop().catch(() => undefined);
  await client?.close();
  await engine?.stop();
  await server?.stop();
});

interface Ev { id: number; type: string; previousEventId: number; timestamp: number }
const history = async (executionArn: string) => (await client.call<{ events: Ev[] }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events;
const stats = async () => JSON.parse(new TextDecoder().decode((await client.nc.request(`af.node.${NODE}.stats`, new Uint8Array(), { timeout: 10_000 })).data)) as { sfnLive: number; sfnSleeping: number };
const env = { AF_SLEEP_AFTER_MS: '200', AF_NODE_NAME: NODE };

describe('sleeping Step Functions executions and a SIGKILL', () => {
  it('resume after the restart and finish with gap-free histories', async () => {
    engine = await spawnEngine(server.url, env);
    const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: freshName('crash-act') });
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
      name: freshName('crash-sm'), roleArn: SFN_ROLE,
      definition: JSON.stringify({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, Next: 'Pause' }, Pause: { Type: 'Wait', Seconds: WAIT_S, End: true } } }),
    });
    const arns: string[] = [];
    for (let i = 0; i < N; i += 20) {
      arns.push(...await Promise.all(Array.from({ length: 20 }, async (_, j) =>
        (await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, name: `x${i + j}`, input: JSON.stringify({ n: i + j }) })).executionArn)));
    }
    await until(async () => (await stats()).sfnSleeping === N, { timeoutMs: 20_000, intervalMs: 200, message: `all ${N} asleep` });

    engine.kill('SIGKILL');
    await engine.exited;
    engine = await spawnEngine(server.url, env);
    // Rebuilt from history, and asleep again (only their deadlines kept).
    await until(async () => { const s = await stats(); return s.sfnSleeping + s.sfnLive === N; }, { timeoutMs: 20_000, intervalMs: 200, message: `all ${N} rebuilt` });

    worker = startSfnActivityWorker(client, { activityArn, workerName: 'w', concurrency: 16, pollTimeoutMs: 2000, handler: async (input) => input });
    const statusOf = async (executionArn: string) => (await client.call<{ status: string; output?: string }>('DescribeExecution', { executionArn }));
    await until(async () => {
      const s = await Promise.all(arns.map(statusOf));
      return s.every((d) => d.status !== 'RUNNING');
    }, { timeoutMs: 60_000, intervalMs: 500, message: 'every execution closed' });
    for (const [i, arn] of arns.entries()) {
      expect(await statusOf(arn)).toMatchObject({ status: 'SUCCEEDED', output: JSON.stringify({ n: i }) });
      const events = await history(arn);
      expect(events.map((e) => e.id)).toEqual(events.map((_, k) => k + 1));
      for (const e of events) expect(e.previousEventId).toBeLessThan(e.id);
      expect(events.map((e) => e.type)).toEqual([
        'ExecutionStarted', 'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited',
        'WaitStateEntered', 'WaitStateExited', 'ExecutionSucceeded',
      ]);
      const entered = events.find((e) => e.type === 'WaitStateEntered')!.timestamp;
      expect(events.find((e) => e.type === 'WaitStateExited')!.timestamp - entered).toBeGreaterThanOrEqual(WAIT_S);
    }
  });
});
