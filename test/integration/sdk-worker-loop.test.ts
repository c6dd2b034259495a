import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fault, isFault } from '../../src/protocol/faults.js';
import { faultToWire, toWire } from '../../src/protocol/wire.js';
import { encode } from '../../src/protocol/codec.js';
import { SFN_ANSWER, SWF_ANSWER, sendAnswer } from '../../src/sdk/answer.js';
import { ActivityWorker } from '../../src/sdk/activity-worker.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { WorkerLoop } from '../../src/sdk/worker-loop.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

/** The SDK against a NATS with no engine on its prefix: a request finds no responders unless the test answers it. */
let nats: NatsServerHandle;
let lonely: ActorFlowClient;
beforeAll(async () => {
  nats = await startNatsServer();
  lonely = await ActorFlowClient.connect({ servers: nats.url, prefix: 'nobody' });
});
afterAll(async () => {
  await lonely?.close();
  await nats?.stop();
});

describe('WorkerLoop', () => {
  it('backs off between failed polls (not a fixed 200 ms), and stop() ends the pause at once', async () => {
    const errors: unknown[] = [];
    const worker = new ActivityWorker(lonely, { domain: 'd', taskList: 'l', onError: (e) => errors.push(e) }, {}).start();
    await new Promise((r) => setTimeout(r, 3000));
    // 200, 400, 800, 1600 ms (+ up to 50 %): at most 5 polls in 3 s; a fixed 200 ms pause makes 15.
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors.length).toBeLessThanOrEqual(6);
    expect(errors[0]).toMatchObject({ message: expect.stringContaining('no responders') });
    const t0 = Date.now();
    await worker.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('stop() waits for a task in hand whose answer is being resent, for the stop grace at most', async () => {
    let polled = 0;
    let answered: unknown = 'pending';
    const loop: WorkerLoop<string> = new WorkerLoop(lonely, { answers: SWF_ANSWER, stopGraceMs: 1000 }, {
      poll: async () => (polled++ === 0 ? 'task-1' : new Promise<undefined>((r) => setTimeout(r, 50))),
      handle: async (token) => { answered = await loop.answer('RespondActivityTaskCompleted', { taskToken: token }).catch((e: unknown) => e); },
    });
    loop.start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(answered).toBe('pending'); // still resending: no engine has taken it
    const t0 = Date.now();
    await loop.stop();
    const took = Date.now() - t0;
    expect(answered).toMatchObject({ message: expect.stringContaining('no responders') });
    // The grace (1 s), plus at most one attempt in flight (3 s).
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(1000 + 3000 + 2000);
  });

  it('refuses a concurrency that would run no poll at all', () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ActivityWorker(lonely, { domain: 'd', taskList: 'l', concurrency }, {})).toThrow(/concurrency must be a whole number of at least 1/);
    }
  });

  it('start() after stop() polls again', async () => {
    let polls = 0;
    const loop = new WorkerLoop<string>(lonely, { answers: SWF_ANSWER, concurrency: 2 }, {
      poll: async () => { polls++; await new Promise((r) => setTimeout(r, 20)); return undefined; },
      handle: async () => undefined,
    });
    loop.start();
    await until(() => polls >= 4, { timeoutMs: 5000, message: 'two loops polling' });
    await loop.stop();
    const afterStop = polls;
    loop.start();
    await until(() => polls > afterStop + 2, { timeoutMs: 5000, message: 'polling after restart' });
    await loop.stop();
    expect(loop.signal.aborted).toBe(true);
  });
});

/** Answers `SendTaskSuccess` with `first` once, then `{ ok }`; returns the number of requests seen. */
function engineAnswering(first: Fault): { calls: () => number; stop: () => void } {
  let calls = 0;
  const sub = lonely.nc.subscribe('nobody.api.SendTaskSuccess', {
    callback: (_err, m) => { m.respond(encode(calls++ === 0 ? faultToWire(first) : toWire({}))); },
  });
  return { calls: () => calls, stop: () => sub.unsubscribe() };
}

/**
 * The retryable flag over a real NATS connection: a responder on the API subject answers as an engine
 * node does (faultToWire), first with a fault, then with success. The SDK sends the answer again only
 * when the fault says it may.
 */
describe('a fault marked retryable, over NATS', () => {
  it('reaches the client with its flag, and sendAnswer sends the answer again until it lands', async () => {
    const engine = engineAnswering(new Fault('ConflictException', 'the task changed concurrently', { retryable: true }));
    try {
      await sendAnswer(lonely, 'SendTaskSuccess', { taskToken: 't1', output: '{}' }, SFN_ANSWER);
      expect(engine.calls()).toBe(2);
    } finally {
      engine.stop();
    }
  });

  it('a fault marked not retryable is thrown after one try, flag and all', async () => {
    const engine = engineAnswering(new Fault('InternalFailure', 'the task was lost', { retryable: false }));
    try {
      const err = await sendAnswer(lonely, 'SendTaskSuccess', { taskToken: 't2', output: '{}' }, SFN_ANSWER).catch((e: unknown) => e);
      expect(isFault(err, 'InternalFailure')).toBe(true);
      expect(err).toMatchObject({ message: 'the task was lost', retryable: false });
      expect(engine.calls()).toBe(1);
    } finally {
      engine.stop();
    }
  });
});
