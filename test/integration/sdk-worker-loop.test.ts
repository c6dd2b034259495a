import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWF_ANSWER } from '../../src/sdk/answer.js';
import { ActivityWorker } from '../../src/sdk/activity-worker.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { WorkerLoop } from '../../src/sdk/worker-loop.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

/** The workers' one lifecycle against a NATS with no engine on its prefix: every request finds no responders. */
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
