import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { holdIdleConnections, type HeldConnections } from '../helpers/idle-connections.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { rawCall } from '../helpers/swf-http.js';

const LIST_DOMAINS = { target: 'SimpleWorkflowService.ListDomains', body: '{"registrationStatus":"REGISTERED"}' };

/**
 * The lock-out needs the engine's open files used up. This machine's limit is 20,000, but opening 20,000
 * connections takes longer than a test should on a loaded 2-core machine, so the engine runs with a
 * limit of 2,000 and gets 3× as many idle connections: the same exhaustion, scaled down.
 */
const OPEN_FILES = 2000;
const IDLE = 3 * OPEN_FILES;

describe(`${IDLE} idle connections to an engine whose open-file limit is ${OPEN_FILES}`, () => {
  let nats: NatsServerHandle;
  let engine: EngineProcess;
  const holders: HeldConnections[] = [];
  beforeAll(async () => {
    nats = await startNatsServer();
    engine = await spawnEngine(nats.url, {}, { openFiles: OPEN_FILES });
  }, 60_000);
  afterAll(async () => {
    for (const h of holders) h.stop();
    await engine?.stop();
    await nats?.stop();
  });

  it('do not lock a new client out', async () => {
    const port = Number(new URL(engine.http).port);
    holders.push(await holdIdleConnections(port, IDLE));
    // The kernel completes the handshakes itself (listen backlog), so most connect even when the engine cannot accept.
    expect(holders[0]!.connected).toBeGreaterThan(OPEN_FILES);
    const t0 = Date.now();
    const a = await rawCall(port, { ...LIST_DOMAINS, signal: AbortSignal.timeout(10_000) });
    expect(a.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 60_000);
});

describe('request timeouts', () => {
  let e: TestEngine;
  beforeAll(async () => {
    e = await startTestEngine({ http: { port: 0, accessKeys: {}, requestTimeoutMs: 2000 } });
  });
  afterAll(async () => { await e?.stop(); });

  it('close a connection that sends no request within the header timeout', async () => {
    const socket = connect(e.node.http!.port, '127.0.0.1');
    const t0 = Date.now();
    const closedAfter = await new Promise<number>((resolve) => {
      socket.on('data', () => undefined);
      socket.once('close', () => resolve(Date.now() - t0));
    });
    // headers get half the request timeout (1 s), checked every second
    expect(closedAfter).toBeLessThan(5000);
  });

  it('do not cut a long poll once its request is in', async () => {
    const domain = uniqueDomain('http-poll');
    await rawCall(e.node.http!.port, { target: 'SimpleWorkflowService.RegisterDomain', body: JSON.stringify({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }) });
    const t0 = Date.now();
    const a = await rawCall(e.node.http!.port, {
      target: 'SimpleWorkflowService.PollForActivityTask', body: JSON.stringify({ domain, taskList: { name: 'tl' }, afPollTimeoutMs: 4500 }),
    });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ startedEventId: 0 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4000);
  });

  it('hold at most maxConnections; the longest-idle one makes room for a new client', async () => {
    const capped = await startTestEngine({ http: { port: 0, accessKeys: {}, maxConnections: 50 } });
    const sockets: ReturnType<typeof connect>[] = [];
    try {
      const port = capped.node.http!.port;
      let closed = 0;
      await Promise.all(Array.from({ length: 200 }, () => new Promise<void>((resolve) => {
        const s = connect(port, '127.0.0.1', () => resolve());
        s.on('error', () => resolve());
        s.on('close', () => { closed++; });
        sockets.push(s);
      })));
      const a = await rawCall(port, LIST_DOMAINS);
      expect(a.status).toBe(200);
      expect(capped.node.http!.cap.connections).toBeLessThanOrEqual(51);
      expect(closed).toBeGreaterThanOrEqual(150);
    } finally {
      for (const s of sockets) s.destroy();
      await capped.stop();
    }
  });
});
