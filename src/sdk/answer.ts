import { isFault, type FaultName } from '../protocol/faults.js';
import { retry } from '../protocol/retry.js';
import type { ActorFlowClient } from './client.js';

/** One attempt at an answer waits this long: an engine node that died holding the request never replies. */
const ATTEMPT_MS = 3000;
/** Backoff between attempts: doubling from 100 ms to 5 s, each with up to 50 % jitter. */
const BACKOFF = { firstMs: 100, capMs: 5000, jitter: 0.5 };
/** An engine away this long (every node down) ends the resending; the task's own timeouts take over. */
const GIVE_UP_MS = 15 * 60_000;
/** A worker told to stop resends for this much longer at most, so stop() ends during an outage too. */
export const STOP_GRACE_MS = 30_000;

/**
 * A failure after which the answer may not have arrived, and sending it again is safe (the engine
 * closes a task once: a second copy is refused): a fault the engine marked retryable (a node
 * shutting down, a partition changing owner, the engine busy), no reply in time, no engine node
 * listening, or the connection down (its requests time out while it reconnects).
 */
export function transient(e: unknown): boolean {
  if (isFault(e)) return e.retryable;
  // nats.js: TimeoutError, NoRespondersError (named 'NoResponders'), or a RequestError wrapping one
  // of them or saying "connection disconnected"; with async traces off they come unwrapped.
  const name = (e as { name?: string } | undefined)?.name;
  return name === 'TimeoutError' || name === 'NoResponders' || name === 'RequestError';
}

export interface AnswerOptions {
  /**
   * Faults that, after an attempt whose reply was lost, mean the task is gone: closed by that
   * attempt, or timed out meanwhile. Either way there is nothing left to answer, so resending stops.
   * On the first attempt they are a refusal like any other fault and are thrown.
   */
  gone: readonly FaultName[];
  giveUpMs?: number;
  /** The worker is stopping: resending goes on for `stopGraceMs` (default 30 s) more at most. */
  stopping?: AbortSignal;
  stopGraceMs?: number;
}

/**
 * Sends a worker's or decider's answer (Respond*, SendTask*) until the engine accepts it or refuses
 * it with a definite fault. An answer lost with a dying engine node (its partitions are taken over
 * within the lease TTL) is sent again with backoff and jitter (the one retry loop, domain/retry.ts),
 * so a fleet of workers does not resend in step.
 */
export async function sendAnswer(client: ActorFlowClient, action: string, input: object, o: AnswerOptions): Promise<void> {
  const { signal, dispose } = graceAfter(o.stopping, o.stopGraceMs ?? STOP_GRACE_MS);
  try {
    await retry(async (attempt) => {
      try {
        await client.call(action, input, { timeoutMs: ATTEMPT_MS });
      } catch (e) {
        if (attempt > 1 && o.gone.some((name) => isFault(e, name))) return;
        throw e;
      }
    }, { ...BACKOFF, forMs: o.giveUpMs ?? GIVE_UP_MS, retryable: transient, signal });
  } finally {
    dispose();
  }
}

/** A signal that aborts `graceMs` after `stopping` does (at once when it is aborted already). */
function graceAfter(stopping: AbortSignal | undefined, graceMs: number): { signal?: AbortSignal; dispose: () => void } {
  if (!stopping) return { dispose: () => undefined };
  const ended = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const start = () => { timer = setTimeout(() => ended.abort(), graceMs); };
  if (stopping.aborted) start();
  else stopping.addEventListener('abort', start, { once: true });
  return {
    signal: ended.signal,
    dispose: () => { clearTimeout(timer); stopping.removeEventListener('abort', start); },
  };
}

/** SWF answers: a task that is gone (closed or timed out) is UnknownResourceFault. */
export const SWF_ANSWER: AnswerOptions = { gone: ['UnknownResourceFault'] };
/** Step Functions answers: a task that is gone is TaskTimedOut or TaskDoesNotExist. */
export const SFN_ANSWER: AnswerOptions = { gone: ['TaskTimedOut', 'TaskDoesNotExist'] };
