import type { Logger } from 'pino';
import { Fault, isFault } from '../../protocol/faults.js';
import type { EngineClock } from '../../engine/clock.js';
import type { Router } from '../../engine/router.js';
import type { ExecutionRecords, SfnExecutionRecord } from '../kind/execution-records.js';
import { parseArn } from '../arns.js';
import { childExecutionArn, childName } from './map-run-arns.js';
import { CHILD, type ChildState, type MapRunRecord, type MapRunRecords } from './map-run-records.js';
import { awaitExecution, type ChildWatchDeps } from '../integrations/child-executions.js';
import { SFN_DOMAIN } from '../../protocol/partition-hint.js';

/** The resource a Distributed Map state's MapRunStarted carries in its task request (no activity has an ARN like it). */
export const MAP_RUN_RESOURCE = 'arn:actorflow:states:::mapRun';

/** What a Distributed Map state hands the host to run (the task request's input, as JSON). */
export interface MapRunRequest {
  mapRunArn: string;
  /** The labelled state machine the children run. */
  stateMachineArn: string;
  /** The item processor as a state machine definition. */
  definition: string;
  /** Each child execution's input (an item, or a batch), in item order. */
  inputs: unknown[];
  /** Items per child when ItemBatcher made batches. */
  batches?: number[];
  maxConcurrency: number;
  /** Undefined when the definition sets none (see `exceeded`). */
  toleratedFailurePercentage?: number;
  toleratedFailureCount?: number;
}

/** What a map run needs of the execution that started it. */
export type MapRunParent = Pick<SfnExecutionRecord, 'executionArn' | 'partition' | 'stateMachineName' | 'name' | 'roleArn'>;

/** What a map run came to: the children's outputs in item order, or its error. */
export type MapRunResult = { ok: true; output: unknown[] } | { ok: false; error: string; cause: string };

export interface MapRunnerDeps {
  /** Where a child's close is heard (awaitExecution listens on its visibility subject, from any node). */
  watch: Pick<ChildWatchDeps, 'nc' | 'subjects' | 'fallbackMs'>;
  runs: MapRunRecords;
  executions: ExecutionRecords;
  router: Router;
  clock: EngineClock;
  log: Logger;
  /** Most child executions one map run keeps running at once on this node, whatever MaxConcurrency asks (the node's mapRunChildren). */
  maxChildren: number;
  /** The map run ended: its Map state is told (on the parent's owner). */
  finished(parentArn: string, key: string, result: MapRunResult): Promise<void>;
}

/** AWS's MaxConcurrency when the definition gives none (0): 10,000 children at once. */
export const AWS_MAX_CONCURRENCY = 10_000;
/** A map run reads its record (UpdateMapRun's changes) and its parent's this often when no child's close wakes it. */
const TICK_MS = 1000;

/** AWS's error and cause when more children failed than the map run tolerates. */
export const THRESHOLD_ERROR = 'States.ExceedToleratedFailureThreshold';
const THRESHOLD_CAUSE = 'The specified tolerated failure threshold was exceeded';

const failedCount = (children: string): number => {
  let n = 0;
  for (const c of children) if (c === CHILD.failed || c === CHILD.timedOut || c === CHILD.aborted) n++;
  return n;
};

/** Whether the failures pass what the map run tolerates (neither set: none is tolerated). */
export function exceeded(rec: Pick<MapRunRecord, 'children' | 'toleratedFailureCount' | 'toleratedFailurePercentage' | 'byCount' | 'byPercentage'>): boolean {
  const failed = failedCount(rec.children);
  if (failed === 0) return false;
  const overCount = failed > rec.toleratedFailureCount;
  const overPercent = (failed * 100) / rec.children.length > rec.toleratedFailurePercentage;
  if (rec.byCount && rec.byPercentage) return overCount || overPercent;
  if (rec.byPercentage) return overPercent;
  return overCount;
}

const closedState = (status: string): ChildState | undefined =>
  ({ SUCCEEDED: CHILD.succeeded, FAILED: CHILD.failed, TIMED_OUT: CHILD.timedOut, ABORTED: CHILD.aborted } as Record<string, ChildState>)[status];

/**
 * Runs the map runs of the executions this node owns: starts each map run's children (the item
 * processor as a child execution per item or batch, named from the map run and the index, so a
 * restart starts none twice), at most min(MaxConcurrency, maxChildren) at once, follows them to
 * their close, fails the run past its tolerated failures, and tells the Map state the outcome.
 * The record (KV) is the map run's state: a restarted node takes the run up from it.
 */
export class MapRunner {
  private readonly active = new Map<string, { wake: () => void }>();
  private stopped = false;

  constructor(private readonly d: MapRunnerDeps) {}

  /** Starts (or, after a restart, takes up) the map run of a Map state's visit `key` of `parent`. */
  begin(parent: MapRunParent, key: string, req: MapRunRequest): void {
    if (this.stopped || this.active.has(req.mapRunArn)) return;
    let wake = () => {};
    let woken = false;
    const slot = { wake: () => { woken = true; wake(); } };
    this.active.set(req.mapRunArn, slot);
    const sleep = () => new Promise<void>((resolve) => {
      if (woken) { woken = false; resolve(); return; }
      const t = this.d.clock.setTimeout(() => resolve(), TICK_MS);
      wake = () => { this.d.clock.clearTimeout(t); wake = () => {}; woken = false; resolve(); };
    });
    const watching = new Watching(this.watchDeps(), req.mapRunArn, slot.wake);
    void this.run(parent, key, req, sleep, watching)
      .catch((err) => this.d.log.error({ err, mapRunArn: req.mapRunArn }, 'map run stopped; it resumes when its execution is rebuilt'))
      .finally(() => { watching.stop(); this.active.delete(req.mapRunArn); });
  }

  /** awaitExecution's deps: DescribeExecution answered from the execution records. */
  private watchDeps(): ChildWatchDeps {
    return {
      ...this.d.watch, log: this.d.log,
      call: async (_action, input) => {
        const arn = (input as { executionArn: string }).executionArn;
        const { stateMachineName, name } = parseArn(arn, 'execution', 'executionArn');
        const rec = await this.d.executions.get(stateMachineName!, name);
        if (rec?.executionArn !== arn) throw new Fault('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
        return rec;
      },
    };
  }

  /** Node stop: every loop ends at its next turn (the records keep the runs). */
  stop(): void {
    this.stopped = true;
    for (const a of this.active.values()) a.wake();
  }

  private async run(parent: MapRunParent, key: string, req: MapRunRequest, sleep: () => Promise<void>, watching: Watching): Promise<void> {
    let rec = await this.d.runs.create({
      mapRunArn: req.mapRunArn, executionArn: parent.executionArn, stateMachineArn: req.stateMachineArn, status: 'RUNNING',
      startDate: this.d.clock.now(), maxConcurrency: req.maxConcurrency,
      toleratedFailurePercentage: req.toleratedFailurePercentage ?? 0, toleratedFailureCount: req.toleratedFailureCount ?? 0,
      byCount: req.toleratedFailureCount !== undefined, byPercentage: req.toleratedFailurePercentage !== undefined,
      children: CHILD.pending.repeat(req.inputs.length), ...(req.batches ? { batches: req.batches } : {}),
    });
    while (rec.status === 'RUNNING') {
      if (this.stopped || !this.d.router.owns(parent.partition)) return;
      try {
        const next = await this.turn(parent, req, watching);
        if (next === undefined) return;
        rec = next;
      } catch (err) {
        // A store or an owner that did not answer: the next turn tries again.
        this.d.log.warn({ err, mapRunArn: req.mapRunArn }, 'a turn of a map run failed; trying again');
      }
      if (rec.status === 'RUNNING') await sleep();
    }
    await this.deliver(parent, key, req, rec);
  }

  /** One turn: closes heard, the tolerance, the end, more children started; undefined when the run stops here (gone, aborted). */
  private async turn(parent: MapRunParent, req: MapRunRequest, watching: Watching): Promise<MapRunRecord | undefined> {
    const rec = await this.d.runs.get(req.mapRunArn);
    if (!rec) return undefined;
    const children = [...rec.children] as ChildState[];
    const parentNow = await this.d.executions.get(parent.stateMachineName, parent.name);
    if (parentNow?.executionArn !== parent.executionArn || parentNow.status !== 'RUNNING') {
      await this.stopChildren(req.mapRunArn, children, 'States.Aborted', 'The execution that started the map run ended');
      await this.settle(req.mapRunArn, children, { status: 'ABORTED' });
      return undefined;
    }
    watching.apply(children);
    if (exceeded({ ...rec, children: children.join('') })) {
      await this.stopChildren(req.mapRunArn, children, THRESHOLD_ERROR, THRESHOLD_CAUSE);
      return this.settle(req.mapRunArn, children, { status: 'FAILED', error: THRESHOLD_ERROR, cause: THRESHOLD_CAUSE });
    }
    if (!children.some((c) => c === CHILD.pending || c === CHILD.running)) return this.settle(req.mapRunArn, children, { status: 'SUCCEEDED' });
    await this.startMore(parent, req, rec, children);
    watching.follow(children);
    return this.settle(req.mapRunArn, children, {});
  }

  private async child(mapRunArn: string, index: number): Promise<SfnExecutionRecord | undefined> {
    const arn = childExecutionArn(mapRunArn, index);
    const { stateMachineName, name } = parseArn(arn, 'execution', 'executionArn');
    const rec = await this.d.executions.get(stateMachineName!, name);
    return rec?.executionArn === arn ? rec : undefined;
  }

  /** Starts pending children while fewer than the map run's concurrency run. */
  private async startMore(parent: MapRunParent, req: MapRunRequest, rec: MapRunRecord, children: ChildState[]): Promise<void> {
    const limit = Math.min(rec.maxConcurrency === 0 ? AWS_MAX_CONCURRENCY : rec.maxConcurrency, this.d.maxChildren);
    let running = children.filter((c) => c === CHILD.running).length;
    const starts: number[] = [];
    for (let i = 0; i < children.length && running < limit; i++) {
      if (children[i] !== CHILD.pending) continue;
      starts.push(i);
      running++;
    }
    await Promise.all(starts.map(async (i) => {
      children[i] = await this.startChild(parent, req, i);
    }));
  }

  /** One child execution, started idempotently (a child closed before a restart is read, not started again). */
  private async startChild(parent: MapRunParent, req: MapRunRequest, index: number): Promise<ChildState> {
    const executionArn = childExecutionArn(req.mapRunArn, index);
    const { stateMachineName } = parseArn(executionArn, 'execution', 'executionArn');
    const record: SfnExecutionRecord = {
      executionArn, stateMachineArn: req.stateMachineArn, stateMachineName: stateMachineName!, name: childName(req.mapRunArn, index),
      status: 'RUNNING', startDate: this.d.clock.now(), input: JSON.stringify(req.inputs[index] ?? null),
      partition: this.d.router.partitionOf(SFN_DOMAIN, executionArn), definition: req.definition, roleArn: parent.roleArn,
      mapRunArn: req.mapRunArn,
    };
    try {
      await this.d.router.call(record.partition, 'sfnStart', { record });
      return CHILD.running;
    } catch (e) {
      if (!isFault(e, 'ExecutionAlreadyExists')) throw e;
      const held = await this.child(req.mapRunArn, index);
      return (held && closedState(held.status)) ?? CHILD.running;
    }
  }

  private async stopChildren(mapRunArn: string, children: ChildState[], error: string, cause: string): Promise<void> {
    await Promise.all(children.map(async (c, i) => {
      if (c !== CHILD.running) return;
      const executionArn = childExecutionArn(mapRunArn, i);
      await this.d.router.call(this.d.router.partitionOf(SFN_DOMAIN, executionArn), 'sfnStop', { executionArn, error, cause })
        .catch((err: unknown) => this.d.log.warn({ err, executionArn }, 'could not stop a child execution of a map run'));
      children[i] = CHILD.aborted;
    }));
  }

  /** Writes the children's states (and a close) into the record, keeping what UpdateMapRun changed. */
  private async settle(mapRunArn: string, children: ChildState[], close: Partial<MapRunRecord>): Promise<MapRunRecord> {
    const text = children.join('');
    const done = close.status !== undefined ? { ...close, stopDate: this.d.clock.now() } : {};
    const out = await this.d.runs.update(mapRunArn, (r) => (r.children === text && !close.status ? undefined : { ...r, children: text, ...done }));
    return out ?? (await this.d.runs.get(mapRunArn))!;
  }

  /** Tells the Map state; the outputs are the children's, in item order. */
  private async deliver(parent: MapRunParent, key: string, req: MapRunRequest, rec: MapRunRecord): Promise<void> {
    if (rec.status === 'ABORTED') return;
    let result: MapRunResult;
    if (rec.status === 'FAILED') result = { ok: false, error: rec.error ?? THRESHOLD_ERROR, cause: rec.cause ?? THRESHOLD_CAUSE };
    else {
      const outs = await Promise.all(req.inputs.map((_, i) => this.child(req.mapRunArn, i)));
      result = { ok: true, output: outs.map((o) => (o?.output === undefined ? null : JSON.parse(o.output) as unknown)) };
    }
    await this.d.finished(parent.executionArn, key, result);
  }
}

/** One awaitExecution per running child of a map run: a close sets the child's state and wakes the run. */
class Watching {
  private readonly waits = new Map<number, AbortController>();
  private readonly closed = new Map<number, ChildState>();

  constructor(private readonly deps: ChildWatchDeps, private readonly mapRunArn: string, private readonly wake: () => void) {}

  /** Starts waiting for each running child not waited for yet. */
  follow(children: readonly ChildState[]): void {
    children.forEach((c, i) => {
      if (c !== CHILD.running || this.waits.has(i) || this.closed.has(i)) return;
      const ac = new AbortController();
      this.waits.set(i, ac);
      awaitExecution(this.deps, childExecutionArn(this.mapRunArn, i), ac.signal).then((d) => {
        this.closed.set(i, closedState(d.status) ?? CHILD.failed);
        this.wake();
      }, (err: unknown) => {
        if (ac.signal.aborted) return;
        // Waited for again at the run's next turn.
        this.deps.log.warn({ err, mapRunArn: this.mapRunArn, index: i }, 'waiting for a child execution of a map run failed');
      }).finally(() => { if (this.waits.get(i) === ac) this.waits.delete(i); });
    });
  }

  /** The closes heard since the last turn. */
  apply(children: ChildState[]): void {
    for (const [i, state] of this.closed) if (children[i] === CHILD.running) children[i] = state;
    this.closed.clear();
  }

  stop(): void {
    for (const ac of this.waits.values()) ac.abort();
    this.waits.clear();
  }
}
