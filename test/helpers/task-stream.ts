import type { EngineNode } from '../../src/server.js';
import { until } from './until.js';

/** Messages in the node's task stream (AF_TASKS) now. */
export async function queuedTasks(node: EngineNode): Promise<number> {
  return (await node.nats.jsm.streams.info(node.nats.subjects.streams.tasks)).state.messages;
}

/**
 * Waits until the task stream holds `count` messages. A task no poller waits for is held by its
 * owner and published after at most HOLD_MAX_MS (matching/held-tasks.ts): a test that checks that
 * nothing was written waits for that write of the engine's own before it takes its snapshot.
 */
export async function untilQueuedTasks(node: EngineNode, count: number): Promise<void> {
  await until(async () => (await queuedTasks(node)) === count);
}
