import { defineConfig } from 'vitest/config';

/**
 * Tests whose assertions are about time under failure (a node SIGKILLed, leases expiring, timers that
 * straddle a crash): they run after the rest, one file at a time, so the two cores are theirs and a
 * bound like "served again within 10 s" measures the engine, not the other test files.
 */
const TIMING = ['test/cluster/**/*.test.ts', 'test/integration/crash-recovery.test.ts'];

export default defineConfig({
  test: {
    // Integration tests spawn nats-server and run real JetStream round trips.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: TIMING, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timing', include: TIMING, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
