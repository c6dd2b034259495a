import { setMaxListeners } from 'node:events';
import { isFault, type FaultName } from '../domain/faults.js';
import type { ActorFlowClient } from './client.js';

/** One attempt at an answer waits this long: an engine node that died holding the request never replies. */
const ATTEMPT_MS = 3000;
/** Backoff between attempts: doubling from the first to the cap, each with up to 50 % jitter. */
const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 5000;
/** An engine away this long (every node down) ends the resending; the task's own timeouts take over. */
const GIVE_UP_MS = 15 * 60_000;
/** A worker told to stop resends for this much longer at most, so stop() ends during an outage too. */
const STOP_GRACE_MS = 30_000;

/**
 * A failure after which the answer may not have arrived, and sending it again is safe (the engine
 * closes a task once: a second copy is refused): no reply in time, no engine node listening, the
 * connection down (its requests time out while it reconnects), or the engine busy.
 */
function transient(e: unknown): boolean {
  if (isFault(e)) return isFault(e, 'ThrottlingException') || isFault(e, 'InternalFailure');
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
 * within the lease TTL) is sent again with backoff and jitter, so a fleet of workers does not resend
 * in step.
 */
export async function sendAnswer(client: ActorFlowClient, action: string, input: object, o: AnswerOptions): Promise<void> {
  let giveUpAt = Date.now() + (o.giveUpMs ?? GIVE_UP_MS);
  const stopped = () => { giveUpAt = Math.min(giveUpAt, Date.now() + (o.stopGraceMs ?? STOP_GRACE_MS)); };
  if (o.stopping?.aborted) stopped();
  else o.stopping?.addEventListener('abort', stopped, { once: true });
  try {
    return await resend(client, action, input, o, () => giveUpAt);
  } finally {
    o.stopping?.removeEventListener('abort', stopped);
  }
}

async function resend(client: ActorFlowClient, action: string, input: object, o: AnswerOptions, giveUpAt: () => number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.call(action, input, { timeoutMs: ATTEMPT_MS });
      return;
    } catch (e) {
      if (attempt > 1 && o.gone.some((name) => isFault(e, name))) return;
      const base = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(attempt - 1, 6));
      const wait = base + Math.random() * base * 0.5;
      if (!transient(e) || Date.now() + wait > giveUpAt()) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** SWF answers: a task that is gone (closed or timed out) is UnknownResourceFault. */
export const SWF_ANSWER: AnswerOptions = { gone: ['UnknownResourceFault'] };
/** Step Functions answers: a task that is gone is TaskTimedOut or TaskDoesNotExist. */
export const SFN_ANSWER: AnswerOptions = { gone: ['TaskTimedOut', 'TaskDoesNotExist'] };

/** A worker's stop signal: every task in hand listens for it (one listener per concurrency slot). */
export function stopController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}
