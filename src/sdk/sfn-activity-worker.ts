import { SFN_ANSWER } from './answer.js';
import type { ActorFlowClient } from './client.js';
import { WORKER_DEFAULTS, WorkerLoop } from './worker-loop.js';

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

interface SfnTask { taskToken: string; input: string }

/**
 * A Step Functions activity worker over NATS: GetActivityTask long polls, then SendTaskSuccess with
 * the handler's result, or SendTaskFailure with error = err.name and cause = err.message. An answer
 * lost with an engine node (timeout, node shutting down) is sent again.
 */
export function startSfnActivityWorker(client: ActorFlowClient, o: SfnActivityWorkerOptions): SfnActivityWorker {
  const poll = async (): Promise<SfnTask | undefined> => {
    const task = await client.call<{ taskToken?: string; input?: string }>('GetActivityTask', {
      activityArn: o.activityArn, workerName: o.workerName, afPollTimeoutMs: o.pollTimeoutMs ?? WORKER_DEFAULTS.sfnPollTimeoutMs,
    });
    return task.taskToken ? { taskToken: task.taskToken, input: task.input ?? '{}' } : undefined;
  };
  const handle = async ({ taskToken, input }: SfnTask): Promise<void> => {
    const gone = new AbortController();
    const stopTask = () => gone.abort();
    const stopping = loop.signal;
    stopping.addEventListener('abort', stopTask, { once: true });
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
        await loop.answer('SendTaskFailure', { taskToken, error: err.name.slice(0, 256), cause: err.message.slice(0, 32_768) });
        return;
      }
      await loop.answer('SendTaskSuccess', { taskToken, output: JSON.stringify(output ?? null) });
    } finally {
      stopping.removeEventListener('abort', stopTask);
    }
  };
  const loop = new WorkerLoop(client, { concurrency: o.concurrency, onError: o.onError, answers: SFN_ANSWER }, { poll, handle });
  loop.start();
  return { stop: () => loop.stop() };
}
