import type { Logger } from 'pino';
import { SFN_DOMAIN } from '../../protocol/partition-hint.js';
import { createActor, type AnyActorRef, type InspectionEvent, type Observer } from 'xstate';
import { Fault } from '../../protocol/faults.js';
import { HistoryConflictError, type HistoryStore } from '../../history/history-store.js';
import { ExecutionHost, type ExecutionKind, type Sleeper } from '../../engine/execution-host.js';
import { forEachPooled } from '../../engine/pool.js';
import type { PendingTask } from '../compile/graph-context.js';
import type { TaskMessage } from '../../matching/task-message.js';
import type { TaskQueues } from '../../matching/task-queues.js';
import type { Nats } from '../../nats/infrastructure.js';
import type { EngineClock } from '../../engine/clock.js';
import type { PartitionHost } from '../../engine/partition-host.js';
import type { Router } from '../../engine/router.js';
import type { Registry } from '../../registry/registry.js';
import { parseArn } from '../arns.js';
import { sfnKeys, type ActivityRecord } from '../records.js';
import type { SfnExecutionInput, SfnExecutionOutput, SfnInputEvent, SfnTaskRequest } from '../compile/contract.js';
import { inStateCause } from '../compile/state-cause.js';
import { ExecutionRecords, type ExecutionRecordEffects, type SfnExecutionRecord } from './execution-records.js';
import { executionHooks, MachineCache } from './machine-cache.js';
import { HOST_ACTOR, SfnExecution, type SfnBook, type SfnCommit, type SfnTaskState, type SfnTransitionExtra } from './sfn-execution.js';
import { readRestorePoint } from './transition-chunks.js';
import { SfnRedriver, type RedriveAt, type RedriveStart, type SfnRedrivePayload } from './sfn-redrive.js';
import type { SfnActivityTask, SfnOwnerOps, SfnStartPayload, SfnStartTaskPayload, SfnStopPayload, SfnTaskPayload } from './sfn-owner-ops.js';
import type { SfnStoredEvent } from './sfn-events.js';
import { encodeSfnTaskToken, type SfnTaskRef } from './sfn-task-token.js';
import { IntegrationRunner, mustRunAgain } from './integration-runner.js';
import { IntegrationRegistry } from '../integrations/registry.js';
import type { MockHook } from '../integrations/integration.js';
import type { TaskTokens } from '../../engine/task-token.js';
import type { RecoveryProgress } from '../../engine/recovery-progress.js';
import { DamagedRecordError, skipDamagedRun, type Quarantine } from '../../history/quarantine.js';
import { MAP_RUN_RESOURCE, MapRunner, type MapRunRequest, type MapRunResult } from '../map-runs/map-runner.js';
import { MapRunRecords } from '../map-runs/map-run-records.js';
import { unavailableFault } from '../../nats/unavailable.js';

/** What a sleeping execution keeps: the heartbeat deadlines of its started tasks, by task key (heartbeats write no history). */
type SfnMemo = Record<string, number>;

/** The heartbeat deadlines of the started tasks of an actor and its descendants (Parallel branches, Map iterations). */
function heartbeatDeadlines(actor: AnyActorRef, out: SfnMemo): SfnMemo {
  const snap = actor.getSnapshot() as { context?: { task?: PendingTask | null }; children?: Record<string, AnyActorRef | undefined> };
  const t = snap.context?.task;
  if (t?.started && t.hbDeadline !== null) out[t.key] = t.hbDeadline;
  for (const child of Object.values(snap.children ?? {})) if (child) heartbeatDeadlines(child, out);
  return out;
}

/** The pseudo-domain of Step Functions task lists (one per activity ARN) in AF_TASKS, and of their partitions. */
export { SFN_DOMAIN };

export interface SfnHostDeps {
  nats: Nats;
  store: HistoryStore;
  queues: TaskQueues;
  router: Router;
  /** Where the host checks that a scheduled task's activity exists. */
  registry: Registry;
  clock: EngineClock;
  /** Seals the task tokens GetActivityTask hands out. */
  tokens: TaskTokens;
  log: Logger;
  inspect?: Observer<InspectionEvent>;
  /** Where damaged execution records are reported (history is checked by the store). */
  quarantine?: Quarantine;
  /** Put an idle execution to sleep after this long (AF_SLEEP_AFTER_MS, as SWF runs). */
  sleepAfterMs?: number;
  /** Rebuild this many executions at a time at recovery. */
  recoveryConcurrency?: number;
  /** Another writer won the history fence of an execution in this partition (the lease manager checks it still owns it). */
  onConflict?: (partition: number) => void;
  /** Called first thing after every persisted transition, with its events (metrics). */
  onCommit?: (events: readonly SfnStoredEvent[]) => void;
  /** What follows a record's start, close or removal (visibility, retention). */
  recordEffects?: ExecutionRecordEffects;
  /** The service integrations this node serves (none: only activity Tasks run). */
  integrations?: IntegrationRegistry;
  /** Answers Tasks before they run (Step Functions Local's mock config); see MockHook. */
  mock?: MockHook;
  /** Most child executions one Distributed Map run keeps running at once on this node (default 100). */
  mapRunChildren?: number;
}

/** What dispatching a task needs of its execution's record. */
type DispatchTarget = Pick<SfnExecutionRecord, 'executionArn' | 'partition' | 'stateMachineName' | 'name' | 'roleArn'>;

const RECOVERY_CONCURRENCY = 32;

/** AWS's cause when a Task state's activity is gone at scheduling time (the state and event id are added when stored). */
const missingActivityCause = (task: SfnTaskRequest): string =>
  inStateCause(task.key.slice(0, task.key.lastIndexOf('#')), `The activity ${task.resource} does not exist.`);

/** The AF_TASKS message of an execution's activity task. */
function taskMessage(executionArn: string, partition: number, t: SfnTaskState, key: string): TaskMessage {
  return {
    domain: SFN_DOMAIN, workflowId: executionArn, runId: taskRunId(executionArn, key),
    partition, kind: 'a', taskList: t.resource, scheduledEventId: t.scheduledEventId,
  };
}

/** A task message names its task by `<key>@<executionArn>` (msgIDs of AF_TASKS must be unique across executions). */
const taskRunId = (executionArn: string, key: string): string => `${key}@${executionArn}`;
const taskKeyOf = (t: TaskMessage): string => t.runId.slice(0, t.runId.length - t.workflowId.length - 1);

/**
 * Runs Step Functions executions on the partitions this node owns: one root actor per execution
 * (compiled from the definition it started with), persisted one transition per message on
 * `<prefix>.hist.<p>.~sfn.<stateMachine>.<execution>`, with activity tasks on AF_TASKS.
 */
export class SfnHost implements PartitionHost, ExecutionKind<SfnExecution, SfnMemo> {
  readonly name = 'sfn';
  readonly records: ExecutionRecords;
  /** Live and sleeping executions, their wake-ups and queued tasks: the engine's host, shared with every kind. */
  readonly host: ExecutionHost<SfnExecution, SfnMemo>;
  /** StartExecution calls on their way, by execution ARN (an identical start waits for the first). */
  private readonly starting = new Map<string, Promise<void>>();
  private readonly bySystem = new WeakMap<object, SfnExecution>();
  private constructing: SfnExecution | undefined;
  private readonly machines: MachineCache;
  private readonly redriver: SfnRedriver;
  private readonly runner: IntegrationRunner;
  /** The Distributed Map runs of the executions this node owns. */
  readonly mapRuns: MapRunner;
  readonly mapRunRecords: MapRunRecords;

  constructor(private readonly d: SfnHostDeps) {
    this.records = new ExecutionRecords(d.nats.sfnExecutions, () => d.clock.now(), d.quarantine, d.recordEffects);
    this.mapRunRecords = new MapRunRecords(d.nats.sfnExecutions);
    this.mapRuns = new MapRunner({
      watch: { nc: d.nats.nc, subjects: d.nats.subjects }, runs: this.mapRunRecords, executions: this.records, router: d.router, clock: d.clock, log: d.log,
      maxChildren: d.mapRunChildren ?? 100, finished: (arn, key, result) => this.mapRunDone(arn, key, result),
    });
    this.host = new ExecutionHost<SfnExecution, SfnMemo>(d.queues, d.clock, d.log, {
      sleepAfterMs: d.sleepAfterMs ?? 30_000, owns: (p) => d.router.owns(p), onConflict: d.onConflict,
    }).serve(this);
    // While createActor runs, the root's first macrostep already evaluates (its actor system is
    // not mapped yet): the execution being constructed answers.
    const of = (system: unknown) => this.bySystem.get(system as object) ?? this.constructing;
    this.machines = new MachineCache(d.clock, {
      ...executionHooks(of),
      taskToken: (system, key) => {
        const r = of(system)!.rec;
        return this.tokenOf(r.executionArn, r.partition, key);
      },
    });
    this.redriver = new SfnRedriver({
      records: this.records, store: d.store, clock: d.clock, log: d.log, subject: (rec) => this.subject(rec),
      prepare: (definition) => this.machines.prepare(definition), run: (rec, at, start) => this.runRedriven(rec, at, start),
    });
    this.runner = new IntegrationRunner({
      integrations: d.integrations ?? new IntegrationRegistry(), log: d.log, ...(d.mock ? { mock: d.mock } : {}),
      token: (j) => this.tokenOf(j.executionArn, j.partition, j.key),
      deliver: (j, events) => this.deliver(j.executionArn, j.key, events),
      enqueue: async (j) => this.host.ledger.enqueue(j.executionArn, j.key, taskMessage(j.executionArn, j.partition, j.task, j.key)),
    });
  }

  /** Sends a task's events to its execution in turn and persists them, unless the task closed meanwhile. */
  private async deliver(executionArn: string, key: string, events: SfnInputEvent[]): Promise<void> {
    await this.withExecution(executionArn, async (x) => {
      const t = x.book.tasks[key];
      if (!t || t.status === 'closed') return;
      for (const e of events) x.actor!.send(e);
      await x.flush();
    }, async () => undefined);
  }

  /** The sealed token of one task of an execution (`$$.Task.Token`, GetActivityTask, integrations). */
  private tokenOf(executionArn: string, partition: number, key: string): string {
    return encodeSfnTaskToken(this.d.tokens, { executionArn, partition, key });
  }

  /**
   * A task whose scheduling is persisted: a Distributed Map's map run (booked as a task) goes to the
   * map runner; a service task (or any task, when mocked) to the integration runner; an activity
   * task to its activity's task list.
   */
  private async dispatch(rec: DispatchTarget, key: string, t: SfnTaskState): Promise<void> {
    if (t.resource === MAP_RUN_RESOURCE) this.mapRuns.begin(rec, key, JSON.parse(t.input) as MapRunRequest);
    else if (t.service || this.d.mock) this.runner.dispatch({ executionArn: rec.executionArn, partition: rec.partition, key, task: t });
    else this.host.ledger.enqueue(rec.executionArn, key, taskMessage(rec.executionArn, rec.partition, t, key));
  }

  /** After a crash or takeover: every task that nothing runs any more is queued or invoked again. */
  private async redispatch(rec: DispatchTarget, tasks: SfnBook['tasks']): Promise<void> {
    for (const [key, t] of Object.entries(tasks)) if (mustRunAgain(t)) await this.dispatch(rec, key, t);
  }

  /** Owner-side operations, registered on the router (they run on the execution's partition owner). */
  ownerOps(): SfnOwnerOps {
    return {
      sfnStart: (p: SfnStartPayload) => this.start(p.record),
      sfnStartTask: skipDamagedRun((p: SfnStartTaskPayload) => this.startTask(p)),
      sfnTask: (p: SfnTaskPayload) => this.taskResponse(p),
      sfnStop: (p: SfnStopPayload) => this.stopExecution(p),
      sfnRedrive: (p: SfnRedrivePayload) => this.redriver.redrive(p),
    };
  }

  get liveCount(): number {
    return this.host.liveCount;
  }

  get sleepingCount(): number {
    return this.host.sleepingCount;
  }

  partitionOf(x: SfnExecution): number {
    return x.rec.partition;
  }

  memo(x: SfnExecution): SfnMemo | undefined {
    if (!x.actor) return undefined;
    const hb = heartbeatDeadlines(x.actor, {});
    return Object.keys(hb).length ? hb : undefined;
  }

  subject(rec: SfnExecutionRecord): string {
    return this.d.nats.subjects.sfnHistory(rec.partition, rec.stateMachineName, rec.name);
  }

  /** A live execution; `at` restores it: its book, the fence (the subject's last sequence) and the last restore point's sequence. */
  private newExecution(rec: SfnExecutionRecord, at?: { book?: SfnBook; lastSeq: number; restoreSeq: number }): SfnExecution {
    return new SfnExecution(rec, this.subject(rec), this.d.store, this.d.clock,
      (x, c) => this.afterCommit(x, c), (x, err) => this.onError(x, err), at?.book, at?.lastSeq ?? 0, at?.restoreSeq ?? 0, (x, t) => this.vetScheduled(x, t));
  }

  /**
   * Before newly scheduled tasks are stored: a task whose activity does not exist is withdrawn and its
   * state fails the execution at once (AWS: TaskStateEntered, then ExecutionFailed with States.Runtime).
   * Service tasks and map runs name no activity.
   */
  private async vetScheduled(x: SfnExecution, scheduled: SfnTaskRequest[]): Promise<void> {
    for (const task of scheduled) {
      if (task.service || task.resource === MAP_RUN_RESOURCE || await this.activityExists(task.resource)) continue;
      x.withdraw(task.key);
      x.actor?.send({ type: 'sfn.activity.scheduleFailed', key: task.key, error: 'States.Runtime', cause: missingActivityCause(task) } satisfies SfnInputEvent);
    }
  }

  /** Creates and starts the root actor (restored from `snapshot` when given; at a redrive point with `redrive`). */
  private spawn(x: SfnExecution, snapshot?: unknown, redrive?: RedriveStart): void {
    const r = x.rec;
    const input: SfnExecutionInput = {
      executionArn: r.executionArn, executionName: r.name, stateMachineArn: r.stateMachineArn,
      stateMachineName: r.stateMachineName, roleArn: r.roleArn, input: x.executionInput, startTime: r.startDate, ...redrive,
    };
    this.constructing = x;
    let actor;
    try {
      actor = createActor(this.machines.get(r.definition), {
        id: 'root', clock: x.timers, input,
        ...(snapshot ? { snapshot: snapshot as never } : {}),
        ...(this.d.inspect ? { inspect: this.d.inspect } : {}),
      });
    } finally {
      this.constructing = undefined;
    }
    this.bySystem.set(actor.system, x);
    x.actor = actor;
    actor.subscribe({ error: (err) => this.d.log.error({ err, executionArn: r.executionArn }, 'state machine actor failed') });
    actor.start();
  }

  /** StartExecution on the owner: the record's create is the name check; same name and input while running is idempotent. */
  async start(rec: SfnExecutionRecord): Promise<{ executionArn: string; startDate: number }> {
    // Compile before anything is written: a definition this engine cannot run changes nothing.
    try {
      await this.machines.prepare(rec.definition);
    } catch (e) {
      throw new Fault('InvalidDefinition', `Invalid State Machine Definition: '${e instanceof Error ? e.message : String(e)}'`);
    }
    if (!(await this.records.create(rec))) {
      const held = await this.records.get(rec.stateMachineName, rec.name);
      if (held?.status === 'RUNNING' && held.input === rec.input && held.stateMachineArn === rec.stateMachineArn && held.mockTestCase === rec.mockTestCase) {
        // Idempotent only once the execution has its history: wait for a start still on its way
        // (its failure is this caller's too); a record left without history is started now.
        const starting = this.starting.get(held.executionArn);
        if (starting) await starting;
        else if (!(await this.open(held.executionArn))) throw new Fault('ExecutionAlreadyExists', `Execution Already Exists: '${rec.executionArn}'`);
        return { executionArn: held.executionArn, startDate: held.startDate };
      }
      throw new Fault('ExecutionAlreadyExists', `Execution Already Exists: '${rec.executionArn}'`);
    }
    const starting = this.begin(rec).then(() => undefined);
    this.starting.set(rec.executionArn, starting);
    try {
      await starting;
    } finally {
      this.starting.delete(rec.executionArn);
    }
    return { executionArn: rec.executionArn, startDate: rec.startDate };
  }

  /**
   * Records ExecutionStarted, starts the root actor and persists the first transition. When that
   * fails and the execution has no history, its record is taken back (a record is never left
   * RUNNING without history; the caller's retry starts afresh); when the first message did get
   * stored (its ack was lost), the record stays and the next open rebuilds the execution.
   */
  private async begin(rec: SfnExecutionRecord, after?: { lastSeq: number; upTo: number }): Promise<SfnExecution> {
    // After a first transition cut short by a crash: behind its messages, numbering after its events.
    const x = this.newExecution(rec, after && { book: { lastEventId: after.upTo, last: {}, tasks: {} }, lastSeq: after.lastSeq, restoreSeq: 0 });
    this.host.add(rec.executionArn, x);
    try {
      await this.machines.prepare(rec.definition);
      await x.serial(async () => {
        // A start through an alias or version names them, as AWS's ExecutionStartedEventDetails do.
        const via = { ...(rec.stateMachineAliasArn ? { stateMachineAliasArn: rec.stateMachineAliasArn } : {}), ...(rec.stateMachineVersionArn ? { stateMachineVersionArn: rec.stateMachineVersionArn } : {}) };
        x.record(HOST_ACTOR, { type: 'ExecutionStarted', details: { input: rec.input, inputDetails: { truncated: false }, roleArn: rec.roleArn, ...via } });
        this.spawn(x);
        await x.flush();
      });
    } catch (e) {
      this.host.drop(rec.executionArn, x);
      x.kill();
      const outage = unavailableFault(e);
      if (!outage) this.d.log.error({ err: e, executionArn: rec.executionArn }, 'could not start the execution');
      const stored = await this.d.store.readLast(this.subject(rec)).then((m) => m !== undefined, () => true);
      if (!stored) await this.records.remove(rec).catch((err) => this.d.log.error({ err, executionArn: rec.executionArn }, 'could not take back the record of an execution that did not start'));
      throw outage ?? new Fault('InternalFailure', 'could not start the execution', { cause: e });
    }
    return x;
  }

  /** A redrive (sfn-redrive.ts decided it and reopened the record): ExecutionRedriven, then the root from the redrive point. */
  private async runRedriven(rec: SfnExecutionRecord, at: RedriveAt, start: RedriveStart): Promise<void> {
    const x = this.newExecution(rec, at);
    this.host.add(rec.executionArn, x);
    try {
      await x.serial(async () => {
        x.record('root', { type: 'ExecutionRedriven', details: { redriveCount: start.redriveCount } });
        this.spawn(x, undefined, start);
        await x.flush();
      });
    } catch (e) {
      this.host.drop(rec.executionArn, x);
      x.kill();
      throw e;
    }
  }

  /** The live execution, rebuilt from its last history message when it is running but not in memory. */
  async open(executionArn: string): Promise<SfnExecution | undefined> {
    return this.host.open(executionArn);
  }

  /** ExecutionKind: rebuilds a running execution from its last history message (woken from sleep, or after a crash). */
  async load(executionArn: string, sleeper: Sleeper<SfnMemo> | undefined): Promise<SfnExecution | undefined> {
    const { name, stateMachineName } = parseArn(executionArn, 'execution', 'executionArn');
    const rec = await this.records.get(stateMachineName!, name);
    if (!rec || rec.executionArn !== executionArn || rec.status !== 'RUNNING') return undefined;
    // A request that reached this node as it handed the partition over: its new owner answers a retry
    // (answering "no such task" here would lose a worker's SendTaskSuccess).
    if (!this.d.router.owns(rec.partition)) throw new Fault('ServiceUnavailable', `the partition of ${executionArn} is changing owner`);
    return this.restore(rec, sleeper);
  }

  /**
   * Rebuilds a running execution from its last history message (snapshot plus bookkeeping) and
   * re-arms its timers. Woken from sleep (`sleeper`), its tasks are still queued and its heartbeat
   * windows are the ones it slept with; after a crash, unstarted tasks are queued again.
   */
  private async restore(rec: SfnExecutionRecord, sleeper?: Sleeper<SfnMemo>): Promise<SfnExecution | undefined> {
    const found = await readRestorePoint<SfnTransitionExtra>(this.d.store, this.subject(rec));
    // Crashed between the record's create and the end of the first transition: start it now.
    if (!found?.point) return this.begin(rec, found);
    const { point } = found;
    // A transition cut short by a crash: its new events are numbered after the ones it wrote.
    const book = { ...point.extra.book, lastEventId: Math.max(point.extra.book.lastEventId, point.upTo) };
    const x = this.newExecution(rec, { book, lastSeq: point.lastSeq, restoreSeq: point.seq });
    const snap = point.extra.snapshot as { status?: string; output?: SfnExecutionOutput };
    if (snap.status === 'done') {
      // Crashed between the closing append and the record's update.
      await this.closeRecord(x, snap.output!, point.events.at(-1)?.at ?? this.d.clock.now());
      return undefined;
    }
    await this.machines.prepare(rec.definition);
    this.host.add(rec.executionArn, x);
    this.spawn(x, point.extra.snapshot);
    await x.serial(async () => {
      // Heartbeat windows: the ones it slept with; after a crash (no memo) they restart now.
      x.actor!.send((sleeper?.memo ? { type: 'sfn.rearm', hb: sleeper.memo } : { type: 'sfn.rearm' }) satisfies SfnInputEvent);
      await x.flush();
    });
    if (sleeper) return x;
    await this.redispatch(rec, x.book.tasks);
    return x;
  }

  /** After a transition is persisted: dispatch new tasks, drop dead ones, close the execution. */
  private async afterCommit(x: SfnExecution, c: SfnCommit): Promise<void> {
    this.d.onCommit?.(c.events);
    const id = x.rec.executionArn;
    for (const key of c.started) this.host.ledger.started(id, key);
    for (const key of c.closed) {
      this.runner.abort(id, key);
      this.host.ledger.drop(id, key);
    }
    for (const key of c.abandoned) this.runner.abort(id, key);
    for (const task of c.scheduled) {
      const t = x.book.tasks[task.key];
      if (t?.status !== 'scheduled') continue;
      await this.dispatch(x.rec, task.key, t);
    }
    if (x.done) {
      const out = x.actor!.getSnapshot().output as SfnExecutionOutput;
      await this.closeRecord(x, out, c.events.at(-1)?.at ?? this.d.clock.now());
    }
  }

  /** A map run ended: its Map state gets the outcome (as a task's success or failure), unless it is gone. */
  private async mapRunDone(executionArn: string, key: string, result: MapRunResult): Promise<void> {
    await this.withExecution(executionArn, async (x) => {
      if (x.book.tasks[key]?.status !== 'scheduled') return;
      x.actor!.send(result.ok
        ? { type: 'sfn.activity.succeeded', key, output: result.output }
        : { type: 'sfn.activity.failed', key, error: result.error, cause: result.cause } satisfies SfnInputEvent);
      await x.flush();
    }, async () => undefined);
  }

  /** Whether the activity an ARN names exists (the registry's cache, kept current by its watch). */
  private async activityExists(arn: string): Promise<boolean> {
    let name: string;
    try { ({ name } = parseArn(arn, 'activity', 'Resource')); } catch { return false; }
    return (await this.d.registry.get<ActivityRecord>(sfnKeys.activity(name))).value?.arn === arn;
  }

  private async closeRecord(x: SfnExecution, out: SfnExecutionOutput, stopDate: number): Promise<void> {
    this.host.drop(x.rec.executionArn, x);
    x.actor?.stop();
    this.runner.abortExecution(x.rec.executionArn);
    this.host.ledger.dropAll(x.rec.executionArn);
    const closed: SfnExecutionRecord = { ...x.rec, status: out.status, stopDate, historyEvents: x.book.lastEventId };
    if (out.status === 'SUCCEEDED') closed.output = x.text.json(JSON.stringify(out.output ?? null));
    else {
      if (out.error !== undefined) closed.error = out.error;
      if (out.cause !== undefined) closed.cause = x.causeAsStored(out.cause);
    }
    await this.records.close(closed);
  }

  /** A transition could not be stored (or another writer won the fence): the live copy goes and is rebuilt from history. */
  private onError(x: SfnExecution, err: unknown): void {
    this.host.invalidate(x.rec.executionArn, x, err);
  }

  /**
   * Runs `fn` on the live execution in turn. A lost fence drops the live copy: it is rebuilt from
   * history and `fn` runs once more; `missing` answers when the execution is not running here.
   */
  private async withExecution<T>(executionArn: string, fn: (x: SfnExecution) => Promise<T>, missing: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const x = await this.open(executionArn);
      if (!x) return missing();
      try {
        return await x.serial(() => fn(x));
      } catch (e) {
        // A transition that could not be stored killed the live copy: rebuild it even if the caller gives up.
        if (!(e instanceof HistoryConflictError) && x.isDead) this.host.reopenLater(executionArn, x.rec.partition);
        if (!(e instanceof HistoryConflictError)) throw e;
        this.host.drop(executionArn, x);
        if (attempt >= 1) throw new Fault('InternalFailure', 'the execution changed concurrently', { cause: e });
      }
    }
  }

  /** GetActivityTask on the owner: ActivityStarted if the task still waits; null when it is gone. */
  async startTask(p: SfnStartTaskPayload): Promise<SfnActivityTask | null> {
    const key = taskKeyOf(p.task);
    return this.withExecution(p.task.workflowId, async (x) => {
      const t = x.book.tasks[key];
      if (t?.status !== 'scheduled') return null;
      x.actor!.send({ type: 'sfn.activity.started', key, workerName: p.workerName } satisfies SfnInputEvent);
      await x.flush();
      if (x.book.tasks[key]?.status !== 'started') return null;
      return { taskToken: this.tokenOf(x.rec.executionArn, x.rec.partition, key), input: t.input };
    }, async () => null);
  }

  /** SendTaskSuccess/Failure/Heartbeat on the owner. */
  async taskResponse(p: SfnTaskPayload): Promise<object> {
    const { executionArn, key } = p.ref;
    let parsed: { name: string; stateMachineName?: string };
    try { parsed = parseArn(executionArn, 'execution', 'taskToken'); } catch { throw new Fault('InvalidToken', 'Invalid Token'); }
    // A worker quick to answer a callback's token waits for its TaskSubmitted (AWS's order of events).
    await this.runner.submitted(executionArn, key);
    return this.withExecution(executionArn, async (x) => {
      const t = x.book.tasks[key];
      if (!t) throw new Fault('TaskDoesNotExist', 'Task Does Not Exist');
      // A callback's TaskSubmitted may still be missing (its call took longer than the wait above).
      if (t.status !== 'started' && t.status !== 'submitted') throw new Fault('TaskTimedOut', 'Task Timed Out');
      if (p.kind === 'heartbeat') {
        x.actor!.send({ type: 'sfn.activity.heartbeat', key } satisfies SfnInputEvent);
        return {};
      }
      x.actor!.send(p.kind === 'success'
        ? { type: 'sfn.activity.succeeded', key, output: JSON.parse(p.output!) }
        : { type: 'sfn.activity.failed', key, error: p.error, cause: p.cause } satisfies SfnInputEvent);
      await x.flush();
      return {};
    }, async () => {
      // Not running here: the task closed before its execution ended (TaskTimedOut), or it is gone.
      const rec = await this.records.get(parsed.stateMachineName!, parsed.name);
      if (!rec || rec.executionArn !== executionArn) throw new Fault('TaskDoesNotExist', 'Task Does Not Exist');
      const last = await readRestorePoint<SfnTransitionExtra>(this.d.store, this.subject(rec));
      if (last?.point?.extra.book.tasks[key]?.status === 'closed') throw new Fault('TaskTimedOut', 'Task Timed Out');
      throw new Fault('TaskDoesNotExist', 'Task Does Not Exist');
    });
  }

  /** StopExecution on the owner: ExecutionAborted; a closed execution keeps its stop date. */
  async stopExecution(p: SfnStopPayload): Promise<{ stopDate: number }> {
    return this.withExecution(p.executionArn, async (x) => {
      x.actor!.send({ type: 'sfn.stop', error: p.error, cause: p.cause } satisfies SfnInputEvent);
      const events = await x.flush();
      return { stopDate: events.at(-1)?.at ?? this.d.clock.now() };
    }, async () => {
      const { name, stateMachineName } = parseArn(p.executionArn, 'execution', 'executionArn');
      const rec = await this.records.get(stateMachineName!, name);
      if (!rec || rec.executionArn !== p.executionArn) throw new Fault('ExecutionDoesNotExist', `Execution Does Not Exist: '${p.executionArn}'`);
      return { stopDate: rec.stopDate ?? this.d.clock.now() };
    });
  }

  /** Rebuilds the running executions of these partitions from their last history messages. */
  readonly hostName = 'sfn';

  /**
   * Brings back the running executions of these partitions, asleep: each one's last history message
   * gives its next deadline and its unstarted tasks (queued again: a dead node may hold their
   * messages), without rebuilding its actors, which its wake-up or next command does. An execution
   * whose last message says nothing of its deadline (an older version's, or a start cut short) is
   * rebuilt now.
   */
  async recover(partitions: ReadonlySet<number>, _totalPartitions: number, progress?: RecoveryProgress): Promise<number> {
    const t0 = Date.now();
    const index = (await Promise.all([...partitions].map(async (p) => (await this.records.runningIndex(p)).map((e) => ({ ...e, partition: p }))))).flat();
    const indexMs = Date.now() - t0;
    let n = 0;
    let rebuilt = 0;
    await forEachPooled(index, this.d.recoveryConcurrency ?? RECOVERY_CONCURRENCY, async (e) => {
      try {
        if (e.executionArn && await this.recoverAsleep(e.executionArn, e.partition)) { n++; progress?.rebuilt(); return; }
        const rec = await this.records.recordOfIndexKey(e.key);
        await this.records.settleIndexKey(e.key, rec);
        if (rec?.status !== 'RUNNING' || (e.executionArn && rec.executionArn !== e.executionArn)) return;
        const x = await this.restore(rec);
        if (!x) return;
        rebuilt++;
        this.host.sleep(rec.executionArn, x);
        n++;
        progress?.rebuilt();
      } catch (err) {
        // A damaged history was reported (quarantined) already; the execution answers its fault.
        if (!(err instanceof DamagedRecordError)) {
          this.d.log.error({ err, executionArn: e.executionArn, key: e.key }, 'could not rebuild execution; trying again');
          if (e.executionArn) this.host.reopenLater(e.executionArn, e.partition);
        }
      }
    });
    if (index.length > 0) this.d.log.info({ executions: index.length, recovered: n, rebuilt, indexMs, ms: Date.now() - t0 }, 'Step Functions recovery');
    return n;
  }

  /** Registers a running execution as asleep from its last history message; false when it must be rebuilt instead. */
  private async recoverAsleep(executionArn: string, partition: number): Promise<boolean> {
    const { name, stateMachineName } = parseArn(executionArn, 'execution', 'executionArn');
    const found = await readRestorePoint<SfnTransitionExtra>(this.d.store, this.d.nats.subjects.sfnHistory(partition, stateMachineName!, name));
    const point = found?.point;
    if (!point || point.upTo > 0 || point.extra.wakeAt === undefined || (point.extra.snapshot as { status?: string }).status === 'done') return false;
    // A map run needs its execution awake (its runner reports to it): such an execution is loaded, not left asleep.
    if (Object.values(point.extra.book.tasks).some((t) => t.status === 'scheduled' && t.resource === MAP_RUN_RESOURCE)) return false;
    await this.redispatch({ executionArn, partition, stateMachineName: stateMachineName!, name, roleArn: '' }, point.extra.book.tasks);
    this.host.sleepAt(executionArn, partition, point.extra.wakeAt ?? Infinity);
    return true;
  }

  /** Drops a partition's executions (see ExecutionHost.releasePartition); requests arriving meanwhile are told to retry. */
  releasePartition(partition: number, settleMs = 2000): Promise<void> {
    return this.host.releasePartition(partition, settleMs);
  }

  /** Graceful stop: operations already queued finish, then every actor stops (nothing is written). */
  stop(): Promise<void> {
    this.runner.abortAll();
    this.mapRuns.stop();
    return this.host.stop();
  }
}
