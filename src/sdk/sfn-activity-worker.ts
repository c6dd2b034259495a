import { SFN_ANSWER, sendAnswer, stopController } from './answer.js';
import type { ActorFlowClient } from './client.js';
import { PollerPool } from './poller.js';

export interface SfnActivityContext {
  /** SendTaskHeartbeat: restarts the task's heartbeat window. */
  heartbeat(): Promise<void>;
  /** Aborted when the worker stops or a heartbeat learns the task is gone (timed out, execution ended). */
  signal: AbortSignal;
}

export interface SfnActivityWorkerOptions {
  activityArn: string;
  /** Recorded in ActivityStarted (1–80 characters). */
  workerName?: string;
  /** Tasks handled at once (default 1): one long poll per slot. */
  concurrency?: number;
  /** Long-poll length in ms (default 20 s, at most 60 s). */
  pollTimeoutMs?: number;
  /** The JSON-parsed task input → the output (sent JSON-encoded with SendTaskSuccess). A throw → SendTaskFailure. */
  handler: (input: unknown, ctx: SfnActivityContext) => Promise<unknown>;
  onError?: (e: unknown) => void;
}

export interface SfnActivityWorker {
  /** Stops polling, aborts the running handlers' signals and waits for their answers. */
  stop(): Promise<void>;
}

/**
 * A Step Functions activity worker over NATS: GetActivityTask long polls, then SendTaskSuccess with
 * the handler's result, or SendTaskFailure with error = err.name and cause = err.message. An answer
 * lost with an engine node (timeout, node shutting down) is sent again.
 */
export function startSfnActivityWorker(client: ActorFlowClient, o: SfnActivityWorkerOptions): SfnActivityWorker {
  const stopping = stopController();
  const onError = o.onError ?? (() => undefined);
  const once = async () => {
    const task = await client.call<{ taskToken?: string; input?: string }>('GetActivityTask', {
      activityArn: o.activityArn, workerName: o.workerName, afPollTimeoutMs: o.pollTimeoutMs ?? 20_000,
    });
    if (!task.taskToken) return;
    await run(task.taskToken, task.input ?? '{}');
  };
  const run = async (taskToken: string, input: string) => {
    const gone = new AbortController();
    const stopTask = () => gone.abort();
    stopping.signal.addEventListener('abort', stopTask, { once: true });
    const ctx: SfnActivityContext = {
      heartbeat: async () => {
        try {
          await client.call('SendTaskHeartbeat', { taskToken });
        } catch (e) {
          gone.abort(e);
          throw e;
        }
      },
      signal: gone.signal,
    };
    try {
      let output: unknown;
      try {
        output = await o.handler(JSON.parse(input), ctx);
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        await sendAnswer(client, 'SendTaskFailure', { taskToken, error: err.name.slice(0, 256), cause: err.message.slice(0, 32_768) }, { ...SFN_ANSWER, stopping: stopping.signal });
        return;
      }
      await sendAnswer(client, 'SendTaskSuccess', { taskToken, output: JSON.stringify(output ?? null) }, { ...SFN_ANSWER, stopping: stopping.signal });
    } finally {
      stopping.signal.removeEventListener('abort', stopTask);
    }
  };
  const pool = new PollerPool(o.concurrency ?? 1, once, onError);
  pool.start();
  return {
    async stop() {
      stopping.abort();
      await pool.stop();
    },
  };
}
