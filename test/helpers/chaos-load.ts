import { registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker, type SfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import type { SfnShape } from './chaos-checks.js';
import { uniqueDomain } from './engine.js';
import { newTracking, onError, sleep, startOrder, startOrderFleet, type Run, type Tracking } from './resilient-orders.js';
import { freshName, SFN_ROLE } from './sfn-http.js';

/**
 * The load of a chaos run: SWF order workflows and Step Functions executions started at a steady
 * rate over NATS (the SDK), with their deciders and workers. A start counts once the engine
 * acknowledged it (an answer with the run's id); a start lost in a crash is counted as refused.
 */

export interface Starts<T> {
  acknowledged: T[];
  /** Starts that got no acknowledgement (timed out or refused while something was down). */
  refused: Map<string, number>;
}

/** Runs `startOne(n)` `perSecond` times a second (n = 0, 1, 2, …) until `stop()`; resolves when stopped. */
function steadily<T>(perSecond: number, startOne: (n: number) => Promise<T>, s: Starts<T>): { stop(): Promise<void> } {
  let stopped = false;
  let n = 0;
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    while (!stopped) {
      const tick = Date.now();
      for (let i = 0; i < perSecond; i++) {
        const p = startOne(n++).then((x) => { s.acknowledged.push(x); }, (e: unknown) => {
          const name = (e as Error)?.name ?? String(e);
          s.refused.set(name, (s.refused.get(name) ?? 0) + 1);
        }).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await sleep(Math.max(0, 1000 - (Date.now() - tick)));
    }
  })();
  return { async stop() { stopped = true; await loop; await Promise.all(inFlight); } };
}

export const TIMER_SECONDS = 3;
/** Every 4th order waits for a timer between its first and second step. */
export const withTimer = (workflowId: string) => Number(workflowId.split('-').at(-1)) % 4 === 0;

export interface SwfLoad extends Starts<Run> {
  domain: string;
  t: Tracking;
  /** Stops starting new runs (the fleet goes on). */
  stopStarting(): Promise<void>;
  /** Stops the deciders and workers. */
  stop(): Promise<void>;
}

/** Order workflows (test/helpers/resilient-orders.ts) at `perSecond`, every 4th with a 3 s timer. */
export async function startSwfLoad(client: ActorFlowClient, perSecond: number): Promise<SwfLoad> {
  const domain = uniqueDomain('chaos');
  await registerOrderTypes(client, domain);
  const t = newTracking();
  const fleet = await startOrderFleet(client, domain, t, { withTimer, timerSeconds: TIMER_SECONDS, deciders: 8, workers: 16 });
  const s: Starts<Run> = { acknowledged: [], refused: new Map() };
  const starter = steadily(perSecond, (n) => startOrder(client, domain, `order-${n}`), s);
  return { domain, t, ...s, stopStarting: () => starter.stop(), stop: async () => { await starter.stop(); await fleet.stop(); } };
}

export interface SfnExecution { executionArn: string; n: number }

export interface SfnLoad extends Starts<SfnExecution> {
  stateMachineArn: string;
  shape: SfnShape;
  /** The output an execution started with `{ n }` ends with. */
  expectedOutput(n: number): unknown;
  /** Errors the workers reported (answers given up on, polls that failed), by name. */
  workerErrors: Map<string, number>;
  stopStarting(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Prepare (Pass) → First (Task) → Pause (Wait) → Second (Task) → Done (Succeed), the Tasks
 * activities with a 5 s heartbeat and a Retry on States.Timeout: a task started by a node that is
 * then SIGKILLed before its reply reaches the worker is held by nobody (AWS has the same gap); the
 * heartbeat timeout ends it and the Retry schedules it again, as a production state machine would.
 */
export function waitBetweenTasks(first: string, second: string, o: { waitSeconds: number; timeoutSeconds: number; retry: { MaxAttempts: number; BackoffRate?: number } }): object {
  const task = (resource: string, next: object) => ({
    Type: 'Task', Resource: resource, HeartbeatSeconds: 5, TimeoutSeconds: o.timeoutSeconds,
    Retry: [{ ErrorEquals: ['States.Timeout'], IntervalSeconds: 1, ...o.retry }], ...next,
  });
  return {
    StartAt: 'Prepare',
    States: {
      Prepare: { Type: 'Pass', Parameters: { 'n.$': '$.n', stage: 'prepared' }, Next: 'First' },
      First: task(first, { Next: 'Pause' }),
      Pause: { Type: 'Wait', Seconds: o.waitSeconds, Next: 'Second' },
      Second: task(second, { Next: 'Done' }),
      Done: { Type: 'Succeed' },
    },
  };
}

const WAIT_SECONDS = 3;
const ATTEMPTS = 6;

/** Step Functions executions at `perSecond` of waitBetweenTasks (a 3 s Wait, 6 attempts per Task). */
export async function startSfnLoad(client: ActorFlowClient, perSecond: number): Promise<SfnLoad> {
  const act = async () => (await client.call<{ activityArn: string }>('CreateActivity', { name: freshName('chaos-act') })).activityArn;
  const [first, second] = [await act(), await act()];
  const definition = waitBetweenTasks(first, second, { waitSeconds: WAIT_SECONDS, timeoutSeconds: 120, retry: { MaxAttempts: ATTEMPTS - 1, BackoffRate: 1 } });
  const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('chaos-sm'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) });
  const workerErrors = new Map<string, number>();
  const onWorkerError = onError({ errors: workerErrors });
  const work = (fn: (input: any) => unknown) => async (input: unknown) => { await sleep(100 + Math.random() * 200); return fn(input); };
  const workers: SfnActivityWorker[] = [
    startSfnActivityWorker(client, { activityArn: first, concurrency: 8, pollTimeoutMs: 1000, onError: onWorkerError, handler: work(({ n }) => ({ n, doubled: n * 2 })) }),
    startSfnActivityWorker(client, { activityArn: second, concurrency: 8, pollTimeoutMs: 1000, onError: onWorkerError, handler: work(({ n, doubled }) => ({ n, doubled, plusOne: doubled + 1 })) }),
  ];
  const s: Starts<SfnExecution> = { acknowledged: [], refused: new Map() };
  const starter = steadily(perSecond, async (n) => {
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, name: `x-${n}`, input: JSON.stringify({ n }) });
    return { executionArn, n };
  }, s);
  return {
    ...s, stateMachineArn, workerErrors,
    shape: { states: ['Prepare', 'First', 'Pause', 'Second', 'Done'], attempts: { First: ATTEMPTS, Second: ATTEMPTS }, waits: { Pause: WAIT_SECONDS } },
    expectedOutput: (n) => ({ n, doubled: 2 * n, plusOne: 2 * n + 1 }),
    stopStarting: () => starter.stop(),
    async stop() { await starter.stop(); await Promise.all(workers.map((w) => w.stop())); },
  };
}

/** Errors by name, for a report line: `TimeoutError ×3, ThrottlingException ×1`. */
export const countsText = (m: ReadonlyMap<string, number>) => [...m].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
