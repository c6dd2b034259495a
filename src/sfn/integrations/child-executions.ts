import type { NatsConnection } from '@nats-io/transport-node';
import type { Subjects } from '../../nats/subjects.js';
import { decode } from '../../protocol/codec.js';
import { Fault } from '../../protocol/faults.js';
import { parseArn } from '../arns.js';
import type { IntegrationDeps } from './integration.js';

/** What awaiting an execution needs: the service (DescribeExecution) and NATS to hear the close on. */
export interface ChildWatchDeps extends Pick<IntegrationDeps, 'call' | 'log'> {
  nc: NatsConnection;
  subjects: Subjects;
  /** How often the execution is described when no close is heard (a lost message, a store down): 5 s unless set. */
  fallbackMs?: number;
}

/** DescribeExecution's answer as the service gives it (AWS JSON members, dates in epoch seconds). */
export interface DescribedExecution {
  executionArn: string;
  stateMachineArn: string;
  stateMachineVersionArn?: string;
  stateMachineAliasArn?: string;
  name: string;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';
  startDate: number;
  stopDate?: number;
  input?: string;
  inputDetails?: { included: boolean };
  output?: string;
  outputDetails?: { included: boolean };
  error?: string;
  cause?: string;
  [member: string]: unknown;
}

const FALLBACK_MS = 5_000;
/** After a close was heard and DescribeExecution did not show it yet (a store read behind its write): the first look again, doubling. */
const HEARD_RETRY_MS = 100;

/** Describes the execution; undefined for a failure worth trying again (a timeout, an owner moving), a Fault otherwise. */
async function describe(deps: ChildWatchDeps, executionArn: string, signal: AbortSignal): Promise<DescribedExecution | undefined> {
  try {
    return await deps.call('DescribeExecution', { executionArn }, signal) as DescribedExecution;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof Fault && !err.retryable) throw err;
    deps.log.warn({ err, executionArn }, 'describing an awaited execution failed; trying again');
    return undefined;
  }
}

/** Resolves after `ms`, at once on `wake()`, and rejects with the signal's reason on abort. */
class Alarm {
  private ring: (() => void) | undefined;
  private rung = false;

  wake(): void {
    this.rung = true;
    this.ring?.();
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.rung) { this.rung = false; return Promise.resolve(); }
    return new Promise<void>((resolve, reject) => {
      const done = () => { clearTimeout(timer); signal.removeEventListener('abort', abort); this.ring = undefined; this.rung = false; };
      const abort = () => { done(); reject(signal.reason); };
      const timer = setTimeout(() => { done(); resolve(); }, ms);
      this.ring = () => { done(); resolve(); };
      signal.addEventListener('abort', abort, { once: true });
    });
  }
}

/**
 * Waits until a Step Functions execution closes and answers its DescribeExecution. It listens on the
 * execution's visibility subject (SfnRecordEffects sends the closed record there once the record is
 * written, from whichever node of the cluster runs it) and describes the execution when a close is
 * heard, and otherwise every `fallbackMs` only. Rejects with the signal's reason when it is aborted,
 * with `ExecutionDoesNotExist` (or another non-retryable fault) when the execution cannot be described.
 */
export async function awaitExecution(deps: ChildWatchDeps, executionArn: string, signal: AbortSignal): Promise<DescribedExecution> {
  const { name, stateMachineName } = parseArn(executionArn, 'execution', 'executionArn');
  const alarm = new Alarm();
  let heard = false;
  let retryMs = HEARD_RETRY_MS;
  const sub = deps.nc.subscribe(deps.subjects.sfnVisibility(stateMachineName!, name), {
    callback: (err, m) => {
      if (err) return;
      try {
        const rec = decode<{ executionArn?: unknown; status?: unknown }>(m.data);
        if (rec.executionArn === executionArn && rec.status !== 'RUNNING') { heard = true; alarm.wake(); }
      } catch { /* not a record: the fallback still describes the execution */ }
    },
  });
  try {
    // The subscription is known to the server before the first look, so a close right after it is heard.
    await deps.nc.flush();
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const d = await describe(deps, executionArn, signal);
      if (d && d.status !== 'RUNNING') return d;
      const fallbackMs = deps.fallbackMs ?? FALLBACK_MS;
      await alarm.sleep(heard ? Math.min(retryMs, fallbackMs) : fallbackMs, signal);
      if (heard) retryMs *= 2;
    }
  } finally {
    sub.unsubscribe();
  }
}
