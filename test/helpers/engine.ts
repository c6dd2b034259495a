import { randomUUID } from 'node:crypto';
import type { SWFClient } from '@aws-sdk/client-swf';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { startNode, type EngineNode, type StartOptions } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { attributesOf, type WireEvent } from '../../src/sdk/client.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';
import { swfClient } from './swf-http.js';
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

/**
 * For a test file: beforeAll starts an engine with an open SWF gateway and hands `ready` an SDK
 * client on it (and the engine); afterAll stops both.
 */
export function useSwfEngine(ready: (swf: SWFClient, e: TestEngine) => Promise<void> | void): void {
  let e: TestEngine | undefined;
  let swf: SWFClient | undefined;
  beforeAll(async () => {
    e = await startTestEngine({ http: { port: 0, accessKeys: {} } });
    swf = swfClient(e.node.http!.port);
    await ready(swf, e);
  }, 30_000);
  afterAll(async () => {
    swf?.destroy();
    await e?.stop();
  });
}

/** Engine nodes that come and go on one nats-server (restarts, a node replaced by another). */
export interface NodesOnOneNats {
  /** A client of that NATS, and its URL (from beforeAll on). */
  readonly client: ActorFlowClient;
  readonly url: string;
  /** The nodes started and not yet stopped by the test (afterAll stops them). */
  readonly nodes: EngineNode[];
  /** A node on that NATS (4 partitions unless `opts` say otherwise), stopped by afterAll unless the test did. */
  startEngine(opts?: StartOptions): Promise<EngineNode>;
  /** Stops `node` (an engine restart) and starts the node that comes after it with `opts`. */
  replace(node: EngineNode, opts?: StartOptions): Promise<EngineNode>;
}

/** For a test file: beforeAll starts a nats-server and a client; afterAll stops the client, the nodes left and the server. */
export function useNodesOnOneNats(): NodesOnOneNats {
  let server: NatsServerHandle | undefined;
  let client: ActorFlowClient | undefined;
  const nodes: EngineNode[] = [];
  beforeAll(async () => {
    server = await startNatsServer();
    client = await ActorFlowClient.connect({ servers: server.url });
  });
  afterAll(async () => {
    await client?.close();
    for (const n of nodes) await n.stop().catch(() => undefined);
    await server?.stop();
  });
  return {
    get client() { return client!; },
    get url() { return server!.url; },
    nodes,
    async startEngine(opts = {}) {
      const node = await startNode({ natsUrl: server!.url, partitions: 4, logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }), ...opts });
      nodes.push(node);
      return node;
    },
    async replace(node, opts = {}) {
      await node.stop();
      nodes.splice(nodes.indexOf(node), 1);
      return this.startEngine(opts);
    },
  };
}
