/**
 * `actorflow/server`: embedding an engine node in a process (the CLI's `actorflow serve` runs the
 * same). Needs a nats-server with JetStream: join one with `natsUrl`, or start the embedded one.
 */
export { startNode } from './server.js';
export type { EngineNode, StartOptions } from './server.js';
export type { NodeOptions } from './config.js';
export { startEmbeddedNats } from './embedded-nats.js';
export type { EmbeddedNats, EmbeddedNatsOptions } from './embedded-nats.js';
export { natsServerBinary } from './nats/server-binary.js';
export { serve } from './serve.js';
