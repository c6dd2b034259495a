import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_WORKFLOW, registerOrderTypes, startOrderParticipants } from '../../src/demo/order-fulfilment.js';
import { decode, encode } from '../../src/protocol/codec.js';
import { ENGINE_INBOX_PREFIX } from '../../src/nats/connect-options.js';
import { partitionOf } from '../../src/nats/subjects.js';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { uniqueDomain } from '../helpers/engine.js';
import { startSecuredNats, type SecuredNats } from '../helpers/secured-nats.js';
import { expectOrderHistory } from '../helpers/order-history.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certs.js';
import { until } from '../helpers/until.js';

const PARTITIONS = 4;
const silent = pino({ level: process.env.AF_TEST_LOG ?? 'silent' });

/** The permission violation behind a refused request (nats.js wraps it in a RequestError). */
function violation(e: unknown): { operation: string; subject: string } | undefined {
  for (let x: unknown = e; x instanceof Error; x = x.cause) {
    if (x instanceof errors.PermissionViolationError) return { operation: x.operation, subject: x.subject };
  }
  return undefined;
}

async function refusal(p: Promise<unknown>): Promise<{ operation: string; subject: string } | undefined> {
  try {
    await p;
  } catch (e) {
    return violation(e);
  }
  throw new Error('expected the server to refuse');
}

/** Runs one order workflow through `client` (the worker user) and checks its 29-event history. */
async function runOrder(client: ActorFlowClient): Promise<void> {
  const domain = uniqueDomain('lp');
  await registerOrderTypes(client, domain);
  const p = startOrderParticipants(client, domain, { pollTimeoutMs: 1000 });
  try {
    const execution = { workflowId: 'order-1', runId: '' };
    ({ runId: execution.runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: execution.workflowId, workflowType: ORDER_WORKFLOW }));
    await until(async () => (await client.call('DescribeWorkflowExecution', { domain, execution })).executionInfo.executionStatus === 'CLOSED');
    expectOrderHistory(await client.history(domain, execution));
  } finally {
    await p.stop();
  }
}

describe('NATS users: workers may only call the API', () => {
  let nats: SecuredNats;
  let node: EngineNode;
  let client: ActorFlowClient;
  let raw: NatsConnection;
  const refusedInStatus: string[] = [];
  beforeAll(async () => {
    nats = await startSecuredNats();
    node = await startNode({ natsUrl: nats.server.url, natsAuth: nats.engine, partitions: PARTITIONS, logger: silent });
    client = await ActorFlowClient.connect({ servers: nats.server.url, auth: nats.worker });
    raw = await connect({ servers: nats.server.url, user: nats.worker.user, pass: nats.worker.password });
    void (async () => {
      for await (const s of raw.status()) if (s.type === 'error' && s.error instanceof errors.PermissionViolationError) refusedInStatus.push(s.error.message);
    })();
  });
  afterAll(async () => {
    await raw?.close();
    await client?.close();
    await node?.stop();
    await nats?.stop();
  });

  it('refuses anonymous connections and wrong passwords', async () => {
    await expect(connect({ servers: nats.server.url, reconnect: false })).rejects.toBeInstanceOf(errors.AuthorizationError);
    await expect(connect({ servers: nats.server.url, user: 'worker', pass: 'guess', reconnect: false })).rejects.toBeInstanceOf(errors.AuthorizationError);
    await expect(ActorFlowClient.connect({ servers: nats.server.url, auth: { user: 'engine', password: nats.worker.password! } }))
      .rejects.toBeInstanceOf(errors.AuthorizationError);
  });

  it('runs an order workflow through the SWF API as the worker user (register, start, poll, respond)', async () => {
    await runOrder(client);
  });

  it('refuses the worker history writes, KV reads, consumers, streams and owner subjects, and nothing is written', async () => {
    const s = node.nats.subjects;
    const domain = uniqueDomain('lp');
    await registerOrderTypes(client, domain);
    const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: 'w', workflowType: ORDER_WORKFLOW });
    const historySubject = s.history(partitionOf(domain, 'w', PARTITIONS), domain, 'w', runId);
    const before = await node.nats.jsm.streams.info(s.streams.history);
    const streamsBefore = (await node.nats.jsm.streams.names().next()).length;
    const forged = encode([{ eventType: 'WorkflowExecutionCompleted' }]);

    // History: neither a JetStream publish nor a core publish/request reaches the stream.
    expect(await refusal(jetstream(raw).publish(historySubject, forged))).toEqual({ operation: 'publish', subject: historySubject });
    expect(await refusal(raw.request(historySubject, forged, { timeout: 2000 }))).toEqual({ operation: 'publish', subject: historySubject });
    raw.publish(historySubject, forged);
    await raw.flush();
    await until(() => refusedInStatus.some((m) => m.includes(`Publish to "${historySubject}"`)));

    // KV buckets: the bucket handle opens client-side, every read and write is refused.
    const kvm = new Kvm(raw);
    // af_cluster holds the task-token key: a worker that read it could forge tokens.
    for (const bucket of [s.buckets.registry, s.buckets.runs, s.buckets.cluster]) {
      const kv = await kvm.open(bucket);
      if (bucket === s.buckets.cluster) expect(await refusal(kv.get('task-token-key'))).toMatchObject({ operation: 'publish' });
      expect(await refusal(kv.get('d.x'))).toMatchObject({ operation: 'publish', subject: expect.stringMatching(new RegExp(`^\\$JS\\.API\\.(DIRECT|STREAM\\.MSG)\\.GET\\.KV_${bucket}`)) });
      expect(await refusal(kv.put('d.x', 'forged'))).toMatchObject({ operation: 'publish' });
      expect(await refusal(kv.keys().then(async (it) => { for await (const k of it) return k; }))).toMatchObject({ operation: expect.stringMatching(/publish|subscription/) });
    }

    // JetStream API: no consumer, no stream, not even account info.
    expect(await refusal(jetstreamManager(raw, { timeout: 2000 }))).toEqual({ operation: 'publish', subject: '$JS.API.INFO' });
    const jsm = await jetstreamManager(raw, { checkAPI: false, timeout: 2000 });
    expect(await refusal(jsm.consumers.add(s.streams.history, { durable_name: 'spy', ack_policy: AckPolicy.None })))
      .toMatchObject({ operation: 'publish', subject: expect.stringMatching(/^\$JS\.API\.CONSUMER\.(DURABLE\.)?CREATE\./) });
    expect(await refusal(jsm.consumers.add(s.streams.tasks, { durable_name: 'thief', ack_policy: AckPolicy.Explicit })))
      .toMatchObject({ operation: 'publish' });
    expect(await refusal(jsm.streams.add({ name: 'SPY', subjects: [`${s.prefix}.>`] }))).toEqual({ operation: 'publish', subject: '$JS.API.STREAM.CREATE.SPY' });

    // Owner calls between engine nodes, task lists and the engine's private inbox cannot be subscribed to.
    for (const subject of [`${s.prefix}.part.>`, s.tasksAll(), s.historyAll(), `${ENGINE_INBOX_PREFIX}.>`]) {
      const sub = raw.subscribe(subject);
      await raw.flush();
      await until(() => refusedInStatus.some((m) => m.includes(`Subscription to "${subject}"`)));
      await until(() => sub.isClosed());
    }
    // …nor published to (a forged owner call).
    expect(await refusal(raw.request(s.partition(0, 'terminate'), forged, { timeout: 2000 }))).toEqual({ operation: 'publish', subject: s.partition(0, 'terminate') });

    // Nothing was written: same history messages and sequence, no new stream, the run untouched.
    const after = await node.nats.jsm.streams.info(s.streams.history);
    expect([after.state.messages, after.state.last_seq]).toEqual([before.state.messages, before.state.last_seq]);
    expect((await node.nats.jsm.streams.names().next()).length).toBe(streamsBefore);
    await expect(node.nats.jsm.consumers.info(s.streams.history, 'spy')).rejects.toThrow(/consumer not found/);
    const d = await client.call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'w', runId } });
    expect(d.executionInfo.executionStatus).toBe('OPEN');
    // The worker connection still works for the API after all those refusals.
    expect((await client.call('DescribeDomain', { name: domain })).domainInfo.name).toBe(domain);
  });

  it('keeps engine traffic off _INBOX.>: a worker listening there sees only API replies', async () => {
    const snooper = await connect({ servers: nats.server.url, user: nats.worker.user, pass: nats.worker.password });
    try {
      const seen: unknown[] = [];
      snooper.subscribe('_INBOX.>', { callback: (_e, m) => { seen.push(decodeOrRaw(m.data)); } });
      await snooper.flush();
      // Registering and starting make the engine read and write KV and JetStream (replies to its inbox).
      await runOrder(client);
      expect(seen.length).toBeGreaterThan(10);
      for (const m of seen) expect(Object.keys(m as object).filter((k) => k === 'ok' || k === 'fault')).toHaveLength(1);
      expect((node.nats.nc as unknown as { options: { inboxPrefix?: string } }).options.inboxPrefix).toBe(ENGINE_INBOX_PREFIX);
    } finally {
      await snooper.close();
    }
  });
});

function decodeOrRaw(data: Uint8Array): unknown {
  try {
    const v = decode<unknown>(data);
    return typeof v === 'object' && v !== null ? v : { raw: v };
  } catch {
    return { raw: new TextDecoder().decode(data) };
  }
}

describe('TLS for NATS client connections', () => {
  let certs: TestCertificates;
  let nats: SecuredNats;
  let tlsUrl: string;
  beforeAll(async () => {
    certs = await makeTestCertificates();
    nats = await startSecuredNats(`tls {\n  cert_file: "${certs.certFile}"\n  key_file: "${certs.keyFile}"\n  timeout: 2\n}`);
    tlsUrl = nats.server.url.replace(/^nats:/, 'tls:');
  });
  afterAll(async () => {
    await nats?.stop();
    await certs?.remove();
  });

  it('runs a workflow with the engine and a worker on tls:// with the generated CA', async () => {
    const node = await startNode({ natsUrl: tlsUrl, natsAuth: { ...nats.engine, caFile: certs.caFile }, partitions: PARTITIONS, logger: silent });
    const client = await ActorFlowClient.connect({ servers: tlsUrl, auth: { ...nats.worker, caFile: certs.caFile } });
    try {
      expect((node.nats.nc as unknown as { protocol: { transport: { isEncrypted(): boolean } } }).protocol.transport.isEncrypted()).toBe(true);
      await runOrder(client);
    } finally {
      await client.close();
      await node.stop();
    }
  });

  it('refuses a client without the CA, and a plain-text client', async () => {
    const refusedTls = await connect({ servers: tlsUrl, user: nats.worker.user, pass: nats.worker.password, reconnect: false, timeout: 3000 })
      .then(() => 'connected', (e: Error) => `${e.name}: ${e.message} ${String((e.cause as Error | undefined)?.message ?? '')}`);
    expect(refusedTls).toMatch(/self[- ]signed|unable to (verify|get local issuer)/i);
    await expect(ActorFlowClient.connect({ servers: tlsUrl, auth: nats.worker })).rejects.toThrow(/self[- ]signed|unable to (verify|get local issuer)/i);
    // nats:// to a server that requires TLS: the client must upgrade, and without the CA it cannot.
    await expect(ActorFlowClient.connect({ servers: nats.server.url, auth: nats.worker })).rejects.toThrow(/self[- ]signed|unable to (verify|get local issuer)/i);
    // A CA file that does not exist is an actionable configuration error, before any connection.
    await expect(ActorFlowClient.connect({ servers: tlsUrl, auth: { ...nats.worker, caFile: join(tmpdir(), 'no-such-ca.pem') } }))
      .rejects.toThrow(/NATS_CA: cannot read .*no-such-ca\.pem/);
  });
});
