import { afterAll, beforeAll, expect, it } from 'vitest';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker, type SfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/**
 * JSONata executions holding variables, outer and inside Map iterations, when the engine process is
 * SIGKILLed: the restarted process continues each one with the same variables.
 */
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

it('JSONata executions with variables continue with the same variables after a SIGKILL', async () => {
  engine = await spawnEngine(server.url, { AF_SLEEP_AFTER_MS: '200' });
  const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: freshName('vars-act') });
  const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
    name: freshName('vars-sm'), roleArn: SFN_ROLE,
    definition: JSON.stringify({
      QueryLanguage: 'JSONata', StartAt: 'Remember',
      States: {
        Remember: { Type: 'Pass', Assign: { order: '{% $states.input.n %}', tag: '{% "t-" & $string($states.input.n) %}' }, Next: 'Each' },
        Each: {
          Type: 'Map', Items: '{% [1, 2] %}', Next: 'Done',
          ItemProcessor: {
            StartAt: 'Mark',
            States: {
              Mark: { Type: 'Pass', Assign: { item: '{% $states.input * 10 %}' }, Next: 'Work' },
              Work: { Type: 'Task', Resource: activityArn, Arguments: { order: '{% $order %}', item: '{% $item %}' }, Output: '{% $item + $states.result.got %}', End: true },
            },
          },
        },
        Done: { Type: 'Pass', Output: '{% { "order": $order, "tag": $tag, "items": $states.input } %}', End: true },
      },
    }),
  });
  const arns = await Promise.all(Array.from({ length: 20 }, async (_, n) =>
    (await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, name: `v${n}`, input: JSON.stringify({ n }) })).executionArn));
  // Every execution waits in its Map's Task (two activity tasks each), nothing answered: then the kill.
  await until(async () => (await Promise.all(arns.map(async (executionArn) =>
    (await client.call<{ events: Array<{ type: string }> }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events.filter((e) => e.type === 'ActivityScheduled').length)))
    .every((k) => k === 2), { timeoutMs: 20_000, intervalMs: 200, message: 'every execution waiting on its tasks' });
  engine.kill('SIGKILL');
  await engine.exited;
  engine = await spawnEngine(server.url, { AF_SLEEP_AFTER_MS: '200' });

  worker = startSfnActivityWorker(client, {
    activityArn, workerName: 'w', concurrency: 8, pollTimeoutMs: 2000,
    handler: async (input) => ({ got: (input as { order: number; item: number }).order + 1 }),
  });
  const describe = (executionArn: string) => client.call<{ status: string; output?: string }>('DescribeExecution', { executionArn });
  await until(async () => (await Promise.all(arns.map(describe))).every((d) => d.status !== 'RUNNING'), { timeoutMs: 60_000, intervalMs: 500, message: 'every execution closed' });
  for (const [n, arn] of arns.entries()) {
    const d = await describe(arn);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ order: n, tag: `t-${n}`, items: [10 + n + 1, 20 + n + 1] });
  }
}, 120_000);
