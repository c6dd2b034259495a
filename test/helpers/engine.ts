import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { startNode, type EngineNode, type StartOptions } from '../../src/node.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { startNatsServer } from './nats-server.js';
import { installOperationRecorder } from './wire-recorder.js';

export interface TestEngine {
  url: string;
  node: EngineNode;
  client: ActorFlowClient;
  stop(): Promise<void>;
}

/** A real nats-server on a random port, one engine node and a client; call stop() in afterAll. */
export async function startTestEngine(opts: { partitions?: number; sleepAfterMs?: number; http?: StartOptions['http']; node?: StartOptions } = {}): Promise<TestEngine> {
  installOperationRecorder();
  const server = await startNatsServer();
  const node = await startNode({ ...opts.node, natsUrl: server.url, partitions: opts.partitions ?? 4, sleepAfterMs: opts.sleepAfterMs, http: opts.http, logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }) });
  const client = await ActorFlowClient.connect({ servers: server.url });
  return {
    url: server.url, node, client,
    async stop() {
      await client.close();
      await node.stop();
      await server.stop();
    },
  };
}

/** A fresh domain name per test, so tests in one file never see each other's work. */
export function uniqueDomain(label = 'd'): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** History as compact text: `1 WorkflowExecutionStarted / 2 DecisionTaskScheduled / …`. */
export function compact(events: WireEvent[], withAttrs: string[] = []): string {
  return events.map((e) => {
    const a = attributesOf(e);
    const shown = withAttrs.filter((k) => a[k] !== undefined).map((k) => `${k}=${typeof a[k] === 'object' ? JSON.stringify(a[k]) : String(a[k])}`);
    return `${e.eventId} ${e.eventType}${shown.length ? ` ${shown.join(',')}` : ''}`;
  }).join(' / ');
}
