import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests spawn nats-server and run real JetStream round trips.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
