import pino from 'pino';
import { VirtualClock } from '../engine/virtual-clock.js';
import { ActorFlowClient } from '../sdk/client.js';
import { startNode, type EngineNode, type StartOptions } from '../server.js';
import { durationToMs, type Duration } from '../protocol/human-duration.js';
import { startNatsServer } from './nats-server.js';
import { TasksInHand } from './tasks-in-hand.js';

export interface TestEnvironmentOptions {
  /** Skip time whenever nothing runs (default true); `env.skipTime(false)` turns it off later. */
  skipTime?: boolean;
  /** Virtual time at start (epoch ms or a Date; default now). */
  startTime?: number | Date;
  /** Partitions of the engine node (default 4). */
  partitions?: number;
  /** pino level of the engine's log (default `AF_TEST_LOG` or silent). */
  logLevel?: string;
  /** Anything else for the engine node (its clock, NATS URL and HTTP gateway are the environment's). */
  node?: Omit<StartOptions, 'clock' | 'natsUrl' | 'http' | 'logger'>;
}

/** A real engine node on a real nats-server, on a virtual clock. */
export interface TestEnvironment {
  /** `nats://127.0.0.1:PORT` of the environment's own nats-server. */
  readonly natsUrl: string;
  /** The AWS JSON 1.0 gateway (`http://127.0.0.1:PORT`): point AWS SDK clients, boto3 or the aws CLI here (any credentials). */
  readonly endpoint: string;
  /** An ActorFlow client connected to the environment's NATS. */
  readonly client: ActorFlowClient;
  /** The engine node (its config, context, hosts). */
  readonly node: EngineNode;
  /** The engine's clock. */
  readonly clock: VirtualClock;
  /** Virtual time now (epoch ms): what history timestamps read. */
  now(): number;
  /** Moves virtual time forward (`'30d'`, `'1h'`, ms), firing every deadline on the way at its own time. */
  sleep(duration: Duration): Promise<void>;
  /** Turns time-skipping on or off. */
  skipTime(on: boolean): void;
  /** Stops the client, the node and the nats-server, and removes the temporary store. */
  close(): Promise<void>;
}

/**
 * Starts a test environment: a nats-server on a random loopback port with a temporary store, and
 * one engine node on a virtual clock that jumps to the next deadline whenever nothing runs (see
 * VirtualClock for the exact rule), for SWF and Step Functions alike. Close it in afterAll.
 *
 * Good to know: a scheduled decision task holds time (run your decider), and so does a task a
 * worker took and never answered, until it times out in real time or `sleep` passes its deadline.
 * With skipping on, time may jump whenever the engine is idle, also between two of the test's own
 * calls: for a step that must land at a given time, turn skipping off and move time with `sleep`.
 * Closed runs are deleted once virtual time passes their domain's retention, as on AWS.
 */
export async function createTestEnvironment(o: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const start = o.startTime instanceof Date ? o.startTime.getTime() : o.startTime;
  const clock = new VirtualClock({ start, skip: o.skipTime ?? true, watch: new TasksInHand() });
  const server = await startNatsServer();
  let node: EngineNode | undefined;
  let client: ActorFlowClient | undefined;
  try {
    node = await startNode({
      partitions: 4, ...o.node, ...(o.partitions === undefined ? {} : { partitions: o.partitions }),
      natsUrl: server.url, clock, http: { port: 0, accessKeys: {} },
      logger: pino({ level: o.logLevel ?? process.env.AF_TEST_LOG ?? 'silent' }),
    });
    client = await ActorFlowClient.connect({ servers: server.url });
  } catch (e) {
    await node?.stop().catch(() => undefined);
    clock.stop();
    await server.stop();
    throw e;
  }
  const n = node;
  const c = client;
  let closing: Promise<void> | undefined;
  return {
    natsUrl: server.url,
    endpoint: `http://127.0.0.1:${n.http!.port}`,
    client: c,
    node: n,
    clock,
    now: () => clock.now(),
    sleep: (d) => clock.advance(durationToMs(d)),
    skipTime: (on) => clock.setSkipping(on),
    close() {
      closing ??= (async () => {
        await c.close();
        await n.stop();
        clock.stop();
        await server.stop();
      })();
      return closing;
    },
  };
}
