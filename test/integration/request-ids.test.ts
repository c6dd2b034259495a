import { ListDomainsCommand, RegisterDomainCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { uniqueDomain } from '../helpers/engine.js';
import { swfClient } from '../helpers/swf-http.js';
import { capturedLogger } from '../helpers/captured-log.js';

/** Every API request gets an id: on its log lines, and over HTTP in x-amzn-RequestId ($metadata.requestId). */
let server: NatsServerHandle;
let node: EngineNode;
let client: ActorFlowClient;
const { logger, lines } = capturedLogger('debug');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  server = await startNatsServer();
  node = await startNode({ natsUrl: server.url, partitions: 2, http: { port: 0, accessKeys: {} }, logger });
  client = await ActorFlowClient.connect({ servers: server.url });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await node?.stop();
  await server?.stop();
});

describe('request ids', () => {
  it('HTTP: the SDK reads the id into $metadata.requestId, and the request\'s log lines carry it', async () => {
    const swf = swfClient(node.http!.port);
    const domain = uniqueDomain('rid');
    const registered = await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
    const listed = await swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }));
    const refused = await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' })).catch((e: { $metadata: { requestId?: string }; name: string }) => e);
    swf.destroy();
    const ids = [registered.$metadata.requestId, listed.$metadata.requestId, (refused as { $metadata: { requestId?: string } }).$metadata.requestId];
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(3);
    const logged = lines().filter((l) => l.c === 'http' && typeof l.requestId === 'string');
    expect(logged.find((l) => l.requestId === ids[0])).toMatchObject({ action: 'RegisterDomain', msg: 'request served' });
    expect(logged.find((l) => l.requestId === ids[1])).toMatchObject({ action: 'ListDomains', msg: 'request served' });
    expect(logged.find((l) => l.requestId === ids[2])).toMatchObject({ action: 'RegisterDomain', fault: 'DomainAlreadyExistsFault', msg: 'request refused' });
  });

  it('NATS: each request logs under an id of its own', async () => {
    const domain = uniqueDomain('rid-nats');
    await client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    await client.call('DescribeDomain', { name: domain });
    const logged = lines().filter((l) => l.c === 'api' && (l.action === 'RegisterDomain' || l.action === 'DescribeDomain'));
    expect(logged.map((l) => l.action)).toEqual(['RegisterDomain', 'DescribeDomain']);
    for (const l of logged) expect(l.requestId).toMatch(UUID);
    expect(logged[0]!.requestId).not.toBe(logged[1]!.requestId);
  });
});
