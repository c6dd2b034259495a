// The throw-away nats-server lives with the test environment users get (actorflow/testing).
export { startNatsServer, type NatsServerHandle } from '../../src/testing/nats-server.js';
