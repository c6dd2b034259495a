/**
 * `actorflow/testing`: a real engine node on a virtual clock, for tests of workflows whose timers
 * and timeouts last days (time jumps to the next deadline whenever nothing runs).
 */
export { createTestEnvironment } from './test-environment.js';
export type { TestEnvironment, TestEnvironmentOptions } from './test-environment.js';
export { durationToMs } from '../protocol/human-duration.js';
export type { Duration } from '../protocol/human-duration.js';
export { VirtualClock } from '../engine/virtual-clock.js';
export type { VirtualClockOptions, TaskWatch } from '../engine/virtual-clock.js';
export { startNatsServer } from './nats-server.js';
export type { NatsServerHandle } from './nats-server.js';
