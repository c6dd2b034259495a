import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fault, isFault } from '../../src/domain/faults.js';
import { faultToWire, toWire } from '../../src/domain/wire.js';
import { encode } from '../../src/nats/codec.js';
import { SFN_ANSWER, sendAnswer } from '../../src/sdk/answer.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

/**
 * The retryable flag over a real NATS connection: a responder on the API subject answers as an engine
 * node does (faultToWire), first with a fault, then with success. The SDK sends the answer again only
 * when the fault says it may.
 */
let nats: NatsServerHandle;
let client: ActorFlowClient;
beforeAll(async () => {
  nats = await startNatsServer();
  client = await ActorFlowClient.connect({ servers: nats.url, prefix: 'flag' });
});
afterAll(async () => {
  await client?.close();
  await nats?.stop();
});

/** Answers `SendTaskSuccess` with `first` once, then `{ ok }`; returns the number of requests seen. */
function engineAnswering(first: Fault): { calls: () => number; stop: () => void } {
  let calls = 0;
  const sub = client.nc.subscribe('flag.api.SendTaskSuccess', {
    callback: (_err, m) => { m.respond(encode(calls++ === 0 ? faultToWire(first) : toWire({}))); },
  });
  return { calls: () => calls, stop: () => sub.unsubscribe() };
}

describe('a fault marked retryable, over NATS', () => {
  it('reaches the client with its flag, and sendAnswer sends the answer again until it lands', async () => {
    const engine = engineAnswering(new Fault('ConflictException', 'the task changed concurrently', { retryable: true }));
    try {
      await sendAnswer(client, 'SendTaskSuccess', { taskToken: 't1', output: '{}' }, SFN_ANSWER);
      expect(engine.calls()).toBe(2);
    } finally {
      engine.stop();
    }
  });

  it('a fault marked not retryable is thrown after one try, flag and all', async () => {
    const engine = engineAnswering(new Fault('InternalFailure', 'the task was lost', { retryable: false }));
    try {
      const err = await sendAnswer(client, 'SendTaskSuccess', { taskToken: 't2', output: '{}' }, SFN_ANSWER).catch((e: unknown) => e);
      expect(isFault(err, 'InternalFailure')).toBe(true);
      expect(err).toMatchObject({ message: 'the task was lost', retryable: false });
      expect(engine.calls()).toBe(1);
    } finally {
      engine.stop();
    }
  });
});
