import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker, type SfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';
import { waitBetweenTasks } from '../helpers/chaos-load.js';

/**
 * Step Functions executions while partitions move: two clustered in-process nodes on one
 * nats-server, 40 executions (Pass → Task → Wait 3 s → Task → Succeed) with SDK workers over NATS.
 * One node stops gracefully, a third node (its own process) joins, takes a share and is SIGKILLed:
 * every execution succeeds with its output, a gap-free history and no Wait fired early.
 */
const P = 8;
const WAIT_S = 3;
const TTL = { leaseTtlMs: 2000, leaseRenewMs: 400 };
const logger = pino({ level: process.env.AF_TEST_LOG ?? 'silent' });
let server: NatsServerHandle;
let client: ActorFlowClient;
const nodes: EngineNode[] = [];
let third: EngineProcess | undefined;
const workers: SfnActivityWorker[] = [];

const start = async (name: string) => {
  const n = await startNode({ natsUrl: server.url, cluster: true, partitions: P, nodeName: name, ...TTL, sleepAfterMs: 600_000, logger });
  nodes.push(n);
  return n;
};
const owned = (n: EngineNode) => [...n.router.owned].sort((a, b) => a - b);

beforeAll(async () => {
  server = await startNatsServer();
  client = await ActorFlowClient.connect({ servers: server.url });
});

afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => undefined);
  await client?.close();
  await third?.stop();
  for (const n of nodes) await n.stop().catch(() => undefined);
  await server?.stop();
});

interface Ev { id: number; type: string; previousEventId: number; timestamp: number; activityTimedOutEventDetails?: { error?: string; cause?: string } }
const history = async (executionArn: string) =>
  (await client.call<{ events: Ev[] }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events;
const describeExecution = (executionArn: string) =>
  client.call<{ status: string; output?: string; error?: string; cause?: string }>('DescribeExecution', { executionArn });

const EXPECTED_EVENTS = [
  'ExecutionStarted', 'PassStateEntered', 'PassStateExited',
  'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited',
  'WaitStateEntered', 'WaitStateExited',
  'TaskStateEntered', 'ActivityScheduled', 'ActivityStarted', 'ActivitySucceeded', 'TaskStateExited',
  'SucceedStateEntered', 'SucceedStateExited', 'ExecutionSucceeded',
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The event types with every timed-out attempt (ActivityScheduled, ActivityStarted?, ActivityTimedOut) taken out. */
function withoutLostAttempts(types: string[]): string[] {
  const out: string[] = [];
  for (const t of types) {
    if (t !== 'ActivityTimedOut') { out.push(t); continue; }
    if (out.at(-1) === 'ActivityStarted') out.pop();
    expect(out.pop()).toBe('ActivityScheduled');
  }
  return out;
}

describe('Step Functions executions under partition failover', () => {
  it('40 executions succeed through a graceful stop, a joining node and a SIGKILLed node', async () => {
    const a = await start('sfn-a');
    const b = await start('sfn-b');
    await until(() => owned(a).length === 4 && owned(b).length === 4, { timeoutMs: 8000, message: 'a 4/4 split' });

    const act = async () => (await client.call<{ activityArn: string }>('CreateActivity', { name: freshName('act') })).activityArn;
    const [first, second] = [await act(), await act()];
    const definition = waitBetweenTasks(first, second, { waitSeconds: WAIT_S, timeoutSeconds: 60, retry: { MaxAttempts: 3 } });
    const smName = freshName('sm');
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: smName, roleArn: SFN_ROLE, definition: JSON.stringify(definition) });

    // Workers over NATS (connected to the server, not to a node); a handler takes ~1 s.
    const workerErrors: unknown[] = [];
    const onError = (e: unknown) => { workerErrors.push(e); };
    workers.push(
      startSfnActivityWorker(client, { activityArn: first, concurrency: 12, pollTimeoutMs: 1000, onError, handler: async (input) => {
        await sleep(800);
        const { n } = input as { n: number };
        return { n, doubled: n * 2 };
      } }),
      startSfnActivityWorker(client, { activityArn: second, concurrency: 12, pollTimeoutMs: 1000, onError, handler: async (input) => {
        await sleep(800);
        const { n, doubled } = input as { n: number; doubled: number };
        return { n, doubled, plusOne: doubled + 1 };
      } }),
    );

    const runs: { executionArn: string; n: number }[] = [];
    const startMany = async (from: number, count: number) => {
      for (let n = from; n < from + count; n++) {
        const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, name: `x-${n}`, input: JSON.stringify({ n }) });
        runs.push({ executionArn, n });
      }
    };
    const partitionOf = async (name: string) => (await b.ctx.sfnExecutions!.get(smName, name))!.partition;
    const runningOn = async (parts: readonly number[]) => {
      let k = 0;
      for (const r of runs) {
        if (parts.includes(await partitionOf(`x-${r.n}`)) && (await describeExecution(r.executionArn)).status === 'RUNNING') k++;
      }
      return k;
    };

    // (a) 20 executions under way, then a graceful stop of the node that owns some of them.
    await startMany(0, 20);
    const onA = owned(a);
    expect(await runningOn(onA)).toBeGreaterThan(0);
    await sleep(1200); // some in their first Task, some already waiting
    const t0 = Date.now();
    await a.stop();
    const stopMs = Date.now() - t0;
    nodes.splice(nodes.indexOf(a), 1);
    await until(() => owned(b).length === P, { timeoutMs: 5000, message: 'sfn-b owns every partition' });

    // A third node joins (its own process) and takes its share.
    third = await spawnEngine(server.url, {
      AF_CLUSTER: '1', AF_PARTITIONS: String(P), AF_NODE_NAME: 'sfn-c',
      AF_LEASE_TTL_MS: String(TTL.leaseTtlMs), AF_LEASE_RENEW_MS: String(TTL.leaseRenewMs), AF_SLEEP_AFTER_MS: '600000',
    });
    await until(() => owned(b).length === 4, { timeoutMs: 10_000, message: 'sfn-c took half the partitions' });
    const onC = [...Array(P).keys()].filter((p) => !b.router.owns(p));

    // (b) 20 more, then sfn-c disappears without a graceful stop while it runs some of them.
    await startMany(20, 20);
    await sleep(1200);
    const runningOnC = await runningOn(onC);
    expect(runningOnC).toBeGreaterThan(0);
    const killAt = Date.now();
    third.kill('SIGKILL');
    await third.exited;
    await until(() => owned(b).length === P, { timeoutMs: 8000, message: 'sfn-b took over the dead node\'s partitions' });
    const takeoverMs = Date.now() - killAt;
    console.log(`sfn failover: graceful stop ${stopMs} ms; SIGKILL with ${runningOnC} executions running on [${onC.join(',')}], served again ${takeoverMs} ms later`);

    await until(async () => {
      for (const r of runs) if ((await describeExecution(r.executionArn)).status === 'RUNNING') return false;
      return true;
    }, { timeoutMs: 40_000, intervalMs: 250, message: 'every execution closed' });

    if (workerErrors.length > 0) console.log(`worker errors: ${workerErrors.map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))).join('; ')}`);
    let retried = 0;
    for (const r of runs) {
      const d = await describeExecution(r.executionArn);
      expect({ n: r.n, status: d.status, error: d.error, cause: d.cause }).toEqual({ n: r.n, status: 'SUCCEEDED', error: undefined, cause: undefined });
      expect(JSON.parse(d.output!)).toEqual({ n: r.n, doubled: 2 * r.n, plusOne: 2 * r.n + 1 });
      const h = await history(r.executionArn);
      expect(h.map((e) => e.id)).toEqual(h.map((_, i) => i + 1));
      // Attempts lost with the killed node appear as ActivityScheduled, [ActivityStarted,] ActivityTimedOut
      // (States.HeartbeatTimeout) before the attempt that succeeded.
      const lost = h.filter((e) => e.type === 'ActivityTimedOut');
      retried += lost.length;
      for (const e of lost) expect(e.activityTimedOutEventDetails?.error).toBe('States.HeartbeatTimeout');
      expect(withoutLostAttempts(h.map((e) => e.type))).toEqual(EXPECTED_EVENTS);
      const entered = h.find((e) => e.type === 'WaitStateEntered')!;
      const exited = h.find((e) => e.type === 'WaitStateExited')!;
      // Timestamps are epoch seconds: the Wait fired no more than ~1 s before its deadline.
      expect(exited.timestamp - entered.timestamp).toBeGreaterThanOrEqual(WAIT_S - 1);
    }
    console.log(`sfn failover: ${retried} attempt(s) lost with the killed node and retried`);
  }, 75_000);
});
