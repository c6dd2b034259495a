import type { ActorFlowClient, WireEvent } from '../../src/sdk/client.js';
import { sfnExecutionViolations, swfRunViolations, type SfnEvent } from './chaos-checks.js';
import { countsText, startSfnLoad, startSwfLoad, withTimer, type SfnLoad, type SwfLoad } from './chaos-load.js';
import { startClusterTopology, startSingleTopology, type ChaosTarget, type ChaosTopology, type TargetKind } from './chaos-targets.js';
import { missingAnswers, retryingInternal, sleep } from './resilient-orders.js';

/**
 * A chaos run (scripts/chaos.ts, test/cluster/chaos.test.ts): SWF and Step Functions load on a
 * topology while its processes are SIGKILLed and restarted one at a time, then every acknowledged
 * start is checked (test/helpers/chaos-checks.ts).
 */

export interface ChaosOptions {
  mode: 'cluster' | 'single';
  durationMs: number;
  /**
   * Time from one kill to the next, in pairs (x, 2·mean − x) with x uniform in [min, 2·mean − min]:
   * random, yet `durationMs / mean` kills for sure (when the restarts keep up).
   */
  killEveryMs: { min: number; mean: number };
  /** Kills go on (and the load with them) past `durationMs` until there were this many (default 0). */
  minKills?: number;
  swfPerSecond: number;
  sfnPerSecond: number;
  /** How long the runs may take to close after the load stops. */
  drainTimeoutMs: number;
  log?: (line: string) => void;
  /** Handed the topology's stop once it runs (a script stops it on Ctrl-C). */
  onTopology?: (stop: () => Promise<void>) => void;
}

export interface ChaosReport {
  title: string;
  durationMs: number;
  kills: Partial<Record<TargetKind, number>>;
  /** The longest kill-to-serving-again per kind (ms). */
  slowestBack: Partial<Record<TargetKind, number>>;
  swf: { acknowledged: number; refused: string; checked: number };
  sfn: { acknowledged: number; refused: string; checked: number };
  clientErrors: string;
  violations: string[];
}

function* pairedIntervals({ min, mean }: ChaosOptions['killEveryMs']): Generator<number> {
  for (;;) {
    const x = min + Math.random() * 2 * (mean - min);
    yield x;
    yield 2 * mean - x;
  }
}

/** Wall-clock time of day with ms (UTC), to line a history up with the kills. */
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/**
 * Kills until the deadline: a random target of each kind in turn (the kinds alternate from a random
 * first one), restarted at once; the next kill waits until the target serves again.
 */
async function killUntil(targets: ChaosTarget[], o: ChaosOptions, deadline: number, r: ChaosReport, violations: string[]): Promise<void> {
  const log = o.log ?? (() => undefined);
  const kinds = [...new Set(targets.map((t) => t.kind))];
  let k = Math.floor(Math.random() * kinds.length);
  const intervals = pairedIntervals(o.killEveryMs);
  const t0 = Date.now();
  let next = t0 + intervals.next().value!;
  let kills = 0;
  while (next < deadline || kills < (o.minKills ?? 0)) {
    await sleep(next - Date.now());
    const kind = kinds[k++ % kinds.length]!;
    const target = pick(targets.filter((t) => t.kind === kind));
    const killAt = Date.now();
    log(`chaos: ${clock(killAt)} (+${Math.round((killAt - t0) / 1000)} s) SIGKILL ${target.name}`);
    await target.crash();
    r.kills[kind] = (r.kills[kind] ?? 0) + 1;
    kills++;
    try {
      await target.restart();
    } catch (e) {
      violations.push(`${target.name} did not come back after its kill: ${(e as Error).message.slice(0, 300)}`);
      await target.restart();
    }
    const back = Date.now() - killAt;
    r.slowestBack[kind] = Math.max(r.slowestBack[kind] ?? 0, back);
    log(`chaos: ${target.name} serving again ${back} ms after its kill`);
    next = Math.max(killAt + intervals.next().value!, Date.now());
  }
}

/** Calls `isClosed` on the open items (20 at a time) until none is open or the time is up; returns those still open. */
async function untilClosed<T>(items: readonly T[], isClosed: (x: T) => Promise<boolean>, timeoutMs: number): Promise<T[]> {
  let open = [...items];
  const deadline = Date.now() + timeoutMs;
  while (open.length > 0 && Date.now() < deadline) {
    const still: T[] = [];
    for (let i = 0; i < open.length; i += 20) {
      const batch = open.slice(i, i + 20);
      const closed = await Promise.all(batch.map((x) => isClosed(x).catch(() => false)));
      batch.forEach((x, j) => { if (!closed[j]) still.push(x); });
    }
    open = still;
    if (open.length > 0) await sleep(1000);
  }
  return open;
}

/** Runs `fn` over `items`, 20 at a time. */
async function inBatches<T>(items: readonly T[], fn: (x: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 20) await Promise.all(items.slice(i, i + 20).map(fn));
}

async function checkSwf(client: ActorFlowClient, load: SwfLoad, o: ChaosOptions, violations: string[]): Promise<number> {
  const { domain, acknowledged } = load;
  const describe = (run: (typeof acknowledged)[number]) => retryingInternal(() => client.call('DescribeWorkflowExecution', { domain, execution: run }));
  const open = await untilClosed(acknowledged, async (run) => (await describe(run)).executionInfo.executionStatus === 'CLOSED', o.drainTimeoutMs);
  if (open.length > 0) violations.push(`SWF: ${open.length} acknowledged runs still open ${o.drainTimeoutMs} ms after the load stopped, e.g. ${open.slice(0, 3).map((r) => r.workflowId).join(', ')}`);
  const histories = new Map<string, WireEvent[]>();
  let checked = 0;
  await inBatches(acknowledged, async (run) => {
    const [d, events] = await Promise.all([describe(run), retryingInternal(() => client.history(domain, run))]);
    histories.set(run.runId, events);
    const v = swfRunViolations(events, { timer: withTimer(run.workflowId) });
    if (v.length > 0) v.push(`history: ${events.map((e) => `${e.eventId} ${e.eventType} ${clock(e.eventTimestamp * 1000)}`).join(' / ')}`);
    const info = d.executionInfo as { executionStatus: string; closeStatus?: string };
    if (info.executionStatus !== 'CLOSED' || info.closeStatus !== 'COMPLETED') v.push(`described as ${info.executionStatus}/${info.closeStatus}`);
    violations.push(...v.map((x) => `SWF ${run.workflowId}: ${x}`));
    checked++;
  });
  // Answers for runs whose start was not acknowledged (they ran all the same) are not checked: their histories were not read.
  const t = load.t;
  const read = { ...t, activityCompleted: t.activityCompleted.filter((r) => histories.has(r.runId)), decisionCompleted: t.decisionCompleted.filter((r) => histories.has(r.runId)) };
  violations.push(...missingAnswers(read, histories).map((x) => `SWF acknowledged answer missing from history: ${x}`));
  return checked;
}

async function checkSfn(client: ActorFlowClient, load: SfnLoad, o: ChaosOptions, violations: string[]): Promise<number> {
  type D = { status: string; output?: string; error?: string; cause?: string };
  const describe = (arn: string) => retryingInternal(() => client.call<D>('DescribeExecution', { executionArn: arn }));
  const open = await untilClosed(load.acknowledged, async (x) => (await describe(x.executionArn)).status !== 'RUNNING', o.drainTimeoutMs);
  if (open.length > 0) violations.push(`SFN: ${open.length} acknowledged executions still running ${o.drainTimeoutMs} ms after the load stopped, e.g. ${open.slice(0, 3).map((x) => `x-${x.n}`).join(', ')}`);
  let checked = 0;
  await inBatches(load.acknowledged, async (x) => {
    const [d, h] = await Promise.all([
      describe(x.executionArn),
      retryingInternal(() => client.call<{ events: SfnEvent[] }>('GetExecutionHistory', { executionArn: x.executionArn, maxResults: 1000 })),
    ]);
    const v = sfnExecutionViolations(d, load.expectedOutput(x.n), h.events, load.shape);
    if (v.length > 0) v.push(`history: ${h.events.map((e) => `${e.id} ${e.type} ${clock(e.timestamp * 1000)}`).join(' / ')}`);
    violations.push(...v.map((line) => `SFN x-${x.n}: ${line}`));
    checked++;
  });
  return checked;
}

/** Starts the topology and the load, kills for `durationMs`, waits for the runs to close, checks them all. */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => undefined);
  const topo: ChaosTopology = o.mode === 'cluster' ? await startClusterTopology() : await startSingleTopology();
  o.onTopology?.(() => topo.stop());
  const violations: string[] = [];
  const r: ChaosReport = {
    title: topo.title, durationMs: o.durationMs, kills: {}, slowestBack: {},
    swf: { acknowledged: 0, refused: '', checked: 0 }, sfn: { acknowledged: 0, refused: '', checked: 0 }, clientErrors: '', violations,
  };
  let swf: SwfLoad | undefined;
  let sfn: SfnLoad | undefined;
  try {
    swf = await startSwfLoad(topo.client, o.swfPerSecond);
    sfn = await startSfnLoad(topo.client, o.sfnPerSecond);
    const deadline = Date.now() + o.durationMs;
    log(`chaos: ${topo.title}; load for ${Math.round(o.durationMs / 1000)} s (${o.swfPerSecond} SWF and ${o.sfnPerSecond} Step Functions starts a second)`);
    await killUntil(topo.targets, o, deadline, r, violations);
    await sleep(deadline - Date.now());
    r.durationMs = Date.now() - (deadline - o.durationMs);
    await Promise.all([swf.stopStarting(), sfn.stopStarting()]);
    log(`chaos: load stopped (${swf.acknowledged.length} SWF and ${sfn.acknowledged.length} Step Functions starts acknowledged); waiting for them to close`);
    const [swfChecked, sfnChecked] = await Promise.all([checkSwf(topo.client, swf, o, violations), checkSfn(topo.client, sfn, o, violations)]);
    r.swf = { acknowledged: swf.acknowledged.length, refused: countsText(swf.refused), checked: swfChecked };
    r.sfn = { acknowledged: sfn.acknowledged.length, refused: countsText(sfn.refused), checked: sfnChecked };
    r.clientErrors = `deciders/workers: ${countsText(swf.t.errors)}; Step Functions workers: ${countsText(sfn.workerErrors)}`;
    return r;
  } finally {
    await swf?.stop().catch(() => undefined);
    await sfn?.stop().catch(() => undefined);
    await topo.stop();
  }
}

/** The report as a table, then the first violations. */
export function formatChaosReport(r: ChaosReport): string {
  const kills = Object.values(r.kills).reduce((a, b) => a + b, 0);
  const rows: [string, string][] = [
    ['topology', r.title],
    ['duration of the load', `${(r.durationMs / 60_000).toFixed(1)} min`],
    ...Object.entries(r.kills).map(([k, n]): [string, string] => [`kills: ${k}`, `${n} (slowest back to serving: ${((r.slowestBack[k as TargetKind] ?? 0) / 1000).toFixed(1)} s)`]),
    ['kills survived', String(kills)],
    ['SWF starts acknowledged', `${r.swf.acknowledged} (unacknowledged: ${r.swf.refused})`],
    ['SWF executions checked', String(r.swf.checked)],
    ['Step Functions starts acknowledged', `${r.sfn.acknowledged} (unacknowledged: ${r.sfn.refused})`],
    ['Step Functions executions checked', String(r.sfn.checked)],
    ['invariant violations', String(r.violations.length)],
  ];
  const w = Math.max(...rows.map(([a]) => a.length));
  const lines = rows.map(([a, b]) => `| ${a.padEnd(w)} | ${b} |`);
  lines.push(`client errors on the way (retried): ${r.clientErrors}`);
  if (r.violations.length > 0) lines.push('violations (first 50):', ...r.violations.slice(0, 50).map((v) => `  ${v}`));
  return lines.join('\n');
}
