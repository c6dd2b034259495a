import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient, type WireEvent } from '../../src/sdk/client.js';
import { uniqueDomain } from '../helpers/engine.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };

const SIGNALS = 1200;
const PAYLOAD = 'x'.repeat(32_000);
const HISTORY_BYTES = SIGNALS * PAYLOAD.length; // ~38 MB of history

let nats: NatsServerHandle;
let node: EngineNode | undefined;
let client: ActorFlowClient;
const start = () => startNode({ natsUrl: nats.url, partitions: 2, sleepAfterMs: 600_000, logger: pino({ level: 'silent' }) });
beforeAll(async () => {
  nats = await startNatsServer();
  node = await start();
  client = await ActorFlowClient.connect({ servers: nats.url });
});
afterAll(async () => {
  await client?.close();
  await node?.stop();
  await nats?.stop();
});

async function pageAll(domain: string, execution: object, reverse = false): Promise<WireEvent[]> {
  const out: WireEvent[] = [];
  let nextPageToken: string | undefined;
  do {
    const p = await client.call<{ events: WireEvent[]; nextPageToken?: string }>('GetWorkflowExecutionHistory', { domain, execution, nextPageToken, reverseOrder: reverse });
    out.push(...p.events);
    nextPageToken = p.nextPageToken;
  } while (nextPageToken);
  return out;
}

describe('history memory', () => {
  it('a run of large events holds a bounded working set, pages from the stream, and rebuilds fast', async () => {
    const domain = uniqueDomain('hist-mem');
    await client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const workflowType = { name: 'wf', version: '1' };
    await client.call('RegisterWorkflowType', { domain, ...workflowType, defaultTaskList: { name: 'd' }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE' });
    const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: 'big', workflowType });
    const before = heap();
    let sent = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (sent < SIGNALS) { sent++; await client.call('SignalWorkflowExecution', { domain, workflowId: 'big', signalName: 's', input: PAYLOAD }); }
    }));
    const grown = heap() - before;
    const run = node!.owner.liveExecutions().next().value!;
    expect(run.log.length).toBe(SIGNALS + 2);
    // Held: recent transitions (1 MiB) plus read-back cache (1 MiB), far below the 38 MB history.
    expect(run.log.heldBytes).toBeLessThan(3 * 1024 * 1024);
    expect(grown).toBeLessThan(HISTORY_BYTES / 3);

    // Pages read the old events back from JetStream, in both directions, every event once.
    const execution = { workflowId: 'big', runId };
    const forward = await pageAll(domain, execution);
    expect(forward.map((x) => x.eventId)).toEqual(Array.from({ length: SIGNALS + 2 }, (_, i) => i + 1));
    expect(forward.filter((x) => x.eventType === 'WorkflowExecutionSignaled').every((x) => (x as any).workflowExecutionSignaledEventAttributes.input === PAYLOAD)).toBe(true);
    const backward = await pageAll(domain, execution, true);
    expect(backward.map((x) => x.eventId)).toEqual(forward.map((x) => x.eventId).reverse());
    expect(run.log.heldBytes).toBeLessThan(3 * 1024 * 1024);

    // Restart: recovery streams the history through the fold.
    await node!.stop();
    node = undefined;
    const t0 = Date.now();
    node = await start();
    const restartMs = Date.now() - t0;
    const task = await client.call('PollForDecisionTask', { domain, taskList: { name: 'd' }, afPollTimeoutMs: 5000, maximumPageSize: 10, reverseOrder: true });
    expect(task.startedEventId).toBe(SIGNALS + 3);
    expect(task.events.map((x: WireEvent) => x.eventId)).toEqual(Array.from({ length: 10 }, (_, i) => SIGNALS + 3 - i));
    const rebuilt = node.owner.liveExecutions().next().value!;
    expect(rebuilt.log.heldBytes).toBeLessThan(3 * 1024 * 1024);
    console.log(`history ${(HISTORY_BYTES / 1e6).toFixed(0)} MB: heap grew ${(grown / 1e6).toFixed(1)} MB; held ${(run.log.heldBytes / 1e6).toFixed(1)} MB; restart ${restartMs} ms`);
    expect(restartMs).toBeLessThan(20_000);
  }, 120_000);
});
