import pino from 'pino';
import { startNode, type EngineNode } from '../../src/server.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';

/** Two engine nodes on one nats-server, each owning half of 4 partitions for good (no leases). */
export interface TwoNodes {
  server: NatsServerHandle;
  a: EngineNode;
  b: EngineNode;
  stop(): Promise<void>;
}

export async function startTwoNodes(): Promise<TwoNodes> {
  const server = await startNatsServer();
  const logger = pino({ level: 'silent' });
  const a = await startNode({ natsUrl: server.url, partitions: 4, ownPartitions: [0, 1], nodeName: 'a', logger, sleepAfterMs: 600_000 });
  const b = await startNode({ natsUrl: server.url, partitions: 4, ownPartitions: [2, 3], nodeName: 'b', logger, sleepAfterMs: 600_000 });
  return {
    server, a, b,
    stop: async () => {
      await a.stop();
      await b.stop();
      await server.stop();
    },
  };
}
