import type { Logger } from 'pino';
import type { HistoryEvent } from '../../../machines/swf/history-event.js';
import { Fault, fault } from '../../protocol/faults.js';
import type { HistoryStore } from '../../history/history-store.js';
import type { TaskQueues } from '../../matching/task-queues.js';
import type { TaskMessage } from '../../matching/task-message.js';
import type { Nats } from '../../nats/infrastructure.js';
import { encode } from '../../protocol/codec.js';
import { readToEnd } from '../../nats/read-stream.js';
import { kvToken } from '../../nats/subjects.js';
import { CLOSE_EVENTS, foldHistory, type ExecutionState } from '../../../machines/swf/execution-state.js';
import type { HeartbeatMark, MachineSet } from './execution-actors.js';
import { Execution, type RunHost, type RunKey } from './execution.js';
import { ExecutionHost, type ExecutionKind, type Sleeper } from '../../engine/execution-host.js';
import { forEachPooled } from '../../engine/pool.js';
import type { Registry } from '../../registry/registry.js';
import { DamagedRecordError, UNREPORTED, type Quarantine } from '../../history/quarantine.js';
import type { PartitionHost } from '../../engine/partition-host.js';
import type { TaskTokens } from '../../engine/task-token.js';
import type { RecoveryProgress } from '../../engine/recovery-progress.js';
import { EventLog } from '../../history/event-log.js';

/** Effects of a transition on other runs; the service layer provides them (they call other owners). */
export interface RunEffects {
  /** After a persisted transition: start children, signal or cancel other runs, hand over on continue-as-new. */
  afterCommit(run: Execution, events: readonly HistoryEvent[]): void;
  /** After a rebuild: drive again what was initiated but not answered before a crash. */
  resume(run: Execution): void;
}

/** The open run of a workflowId, kept in KV `af_runs` (its create is the uniqueness check). */
export interface OpenRunRecord {
  runId: string;
  partition: number;
  startedAt: number;
  /** For a child run: the parent run and its StartChildWorkflowExecutionInitiated event. */
  parent?: { runId: string; initiatedEventId: number };
}

/** A run's history and fold, for reads of runs that are not (or no longer) live here. */
export interface RunView {
  key: RunKey;
  log: EventLog;
  state: ExecutionState;
  live: Execution | undefined;
}

export const runsKey = (domain: string, workflowId: string) => `${kvToken(domain)}.${kvToken(workflowId)}`;

/** A run's id in the execution host: its partition and key (a sleeping run is woken from it alone). */
const runId = (k: RunKey): string => `${k.partition}\u0000${k.domain}\u0000${k.workflowId}\u0000${k.runId}`;

function keyOf(id: string): RunKey {
  const [partition, domain, workflowId, runId] = id.split('\u0000') as [string, string, string, string];
  return { domain, workflowId, runId, partition: Number(partition) };
}

/** What a sleeping run keeps: the heartbeat clocks of its started activities (heartbeats write no history). */
type RunMemo = Map<number, HeartbeatMark>;

export interface OwnerOptions {
  /** Put a run to sleep (drop its actors and history from memory) after this long without work. */
  sleepAfterMs: number;
  /** Whether this node owns a partition now (the router's view of the leases). */
  owns?: (partition: number) => boolean;
  /** Rebuild this many runs at a time at recovery. */
  recoveryConcurrency?: number;
  /** Domains and types (decisions that start runs read workflow types). */
  registry?: Registry;
  /** Seals the task tokens handed out when a task starts. */
  tokens?: TaskTokens;
  /** What runs do to other runs after a transition (children, external signals, continue-as-new). */
  effects?: RunEffects;
  /** Called once a closed run has left memory (retention bookkeeping). */
  onClosed?: (run: Execution) => Promise<void>;
  /** Called when a run starts, closes or gets cancelRequested, and for every recovered run (visibility). */
  onVisibility?: (run: Execution) => Promise<void>;
  /** Called first thing after every persisted transition, with its events (metrics). */
  onCommit?: (run: Execution, events: readonly HistoryEvent[]) => void;
  /** Another writer won the history fence of a run in this partition (the lease manager checks it still owns it). */
  onConflict?: (partition: number) => void;
  /** Where damaged history and af_runs records are reported (logged, counted). */
  quarantine?: Quarantine;
}

/** Events that change what the visibility queries show about a run. */
const VISIBLE = new Set(['WorkflowExecutionStarted', 'WorkflowExecutionCancelRequested', ...Object.keys(CLOSE_EVENTS)]);

const RECOVERY_CONCURRENCY = 64;

/**
 * Owns the runs of its partitions: a flat registry of live executions, loaded from history on
 * demand, with the NATS effects each transition needs once it is persisted.
 */
export class PartitionOwner implements RunHost, PartitionHost, ExecutionKind<Execution, RunMemo> {
  readonly name = 'swf';
  /** Live and sleeping runs, their wake-ups and queued tasks: the engine's host, shared with every kind. */
  readonly host: ExecutionHost<Execution, RunMemo>;
  /** Runs whose close is being cleaned up: reads must not rebuild them meanwhile. */
  private readonly closing = new Set<string>();

  constructor(
    readonly nats: Nats,
    readonly store: HistoryStore,
    readonly queues: TaskQueues,
    readonly machines: MachineSet,
    readonly log: Logger,
    private readonly opts: OwnerOptions = { sleepAfterMs: 30_000 },
  ) {
    this.host = new ExecutionHost<Execution, RunMemo>(queues, machines.clock, log, {
      sleepAfterMs: opts.sleepAfterMs, owns: (p) => this.opts.owns?.(p) ?? true, onConflict: (p) => this.opts.onConflict?.(p),
    }).serve(this);
  }

  subject(key: RunKey): string {
    return this.nats.subjects.history(key.partition, key.domain, key.workflowId, key.runId);
  }



  get tokens(): TaskTokens {
    if (!this.opts.tokens) throw new Error('PartitionOwner has no task token key');
    return this.opts.tokens;
  }

  get registry(): Registry {
    if (!this.opts.registry) throw new Error('PartitionOwner has no registry');
    return this.opts.registry;
  }

  get liveCount(): number {
    return this.host.liveCount;
  }

  get sleepingCount(): number {
    return this.host.sleepingCount;
  }

  /** Puts runs that had no work for `sleepAfterMs` to sleep (see ExecutionHost.sleepIdle). */
  sleepIdle(): number {
    return this.host.sleepIdle();
  }

  partitionOf(run: Execution): number {
    return run.key.partition;
  }

  memo(run: Execution): RunMemo | undefined {
    const beats = run.actors.heartbeats();
    return beats.size ? beats : undefined;
  }

  /** The runs live in memory here (for introspection and tests). */
  liveRuns(): RunKey[] {
    return [...this.host.values()].map((r) => r.key);
  }

  /** The live runs themselves (metrics count their actors). */
  liveExecutions(): IterableIterator<Execution> {
    return this.host.values();
  }

  /** Registers a freshly started run whose first transition is already persisted. */
  async adopt(key: RunKey, events: HistoryEvent[], lastSeq: number): Promise<Execution> {
    const run = new Execution(key, this, { events, seq: lastSeq });
    this.host.add(runId(key), run);
    await this.afterCommit(run, events);
    return run;
  }

  /** The live run, rebuilt from history if it is open but not in memory; undefined if closed or unknown. */
  async open(key: RunKey): Promise<Execution | undefined> {
    return this.host.open(runId(key), key.partition);
  }

  /** ExecutionKind: rebuilds a run from its history (woken from sleep, or after a crash). */
  async load(id: string, sleeper: Sleeper<RunMemo> | undefined): Promise<Execution | undefined> {
    const key = keyOf(id);
    // A run whose close is being cleaned up is closed: readers get its history, not a new copy.
    if (this.closing.has(id)) return undefined;
    if (!sleeper) {
      // Not put to sleep here: open only if af_runs says this run is the open one.
      if ((await this.openRun(key.domain, key.workflowId))?.runId !== key.runId) return undefined;
    }
    // The history streams through the run's fold: only its recent transitions stay in memory. A
    // transition that cannot be replayed quarantines the history (see replay).
    let run: Execution | undefined;
    await this.store.scan(this.subject(key), (events, seq, bytes) => { run = this.replay(key, run, events, seq, bytes); })
      .catch((err: unknown) => { run?.kill(); throw err; });
    if (!run) return undefined;
    run.replayed();
    run.actors.restoreHeartbeats(sleeper?.memo, this.machines.clock.now());
    if (!sleeper) await this.visibility(run);
    if (run.isClosed) {
      // Closed but not cleaned up (a crash came in between): redo what follows a close.
      this.opts.effects?.afterCommit(run, [run.log.last]);
      await this.afterClose(run);
      return undefined;
    }
    this.host.add(id, run);
    // A sleeping run's tasks are still queued; after a crash they are queued again.
    if (!sleeper) {
      await this.requeueUnstarted(run);
      this.opts.effects?.resume(run);
    }
    return run;
  }

  private get quarantine(): Quarantine {
    return this.opts.quarantine ?? UNREPORTED;
  }

  /**
   * A run's live copy from its history. Events that fit their shape but cannot be replayed (the
   * fold or a machine throws) make the history damaged too: it is quarantined at its last message.
   */
  private replay(key: RunKey, run: Execution | undefined, events: HistoryEvent[], seq: number, bytes: number): Execution {
    try {
      if (!run) return new Execution(key, this, { events, seq, bytes }, true);
      run.replay(events, seq, bytes);
      return run;
    } catch (e) {
      run?.kill();
      if (e instanceof Fault || e instanceof DamagedRecordError) throw e;
      const err = new DamagedRecordError({ kind: 'history', stream: this.nats.subjects.streams.history, subject: this.subject(key), seq,
        reason: `cannot be replayed: ${e instanceof Error ? e.message : String(e)}` });
      this.quarantine.report(err);
      throw err;
    }
  }

  /** The run live or from history; UnknownResourceFault when there is no such run. */
  async view(key: RunKey): Promise<RunView> {
    const run = await this.open(key);
    if (run) return { key, log: run.log, state: run.state, live: run };
    // Closed (or elsewhere): folded as it streams by, keeping only what an EventLog keeps.
    const log = new EventLog((seq) => this.store.readTransition(seq));
    let state: ExecutionState | undefined;
    await this.store.scan(this.subject(key), (events, seq, bytes) => {
      log.push(events, seq, bytes);
      state = foldHistory(events, state);
    });
    if (!state) throw fault.unknownExecution(key.workflowId, key.runId);
    return { key, log, state, live: undefined };
  }

  /**
   * Rebuilds every open run of the given partitions (start-up and takeover): the open runs come
   * from af_runs, their histories from one ordered read per partition (or one for all), then each
   * run goes to sleep with its next deadline armed, and its unstarted tasks are queued again.
   */
  readonly hostName = 'swf';

  async recover(partitions: ReadonlySet<number>, totalPartitions: number, progress?: RecoveryProgress): Promise<number> {
    const wanted = new Map<string, RunKey>();
    for (const rec of await this.openRunRecords()) {
      if (!partitions.has(rec.partition)) continue;
      const key = { domain: rec.domain, workflowId: rec.workflowId, runId: rec.runId, partition: rec.partition };
      wanted.set(this.subject(key), key);
    }
    if (wanted.size === 0) return 0;
    // Only partitions with open runs are read: another partition's history (closed runs, or none) is not needed.
    const withRuns = new Set([...wanted.values()].map((k) => k.partition));
    const filters = partitions.size === totalPartitions ? [this.nats.subjects.historyAll()] : [...withRuns].map((p) => this.nats.subjects.historyPartition(p));
    // Each run folds its transitions as they stream by: only recent ones stay in memory.
    const building = new Map<string, Execution | null>();
    for (const filter of filters) {
      await this.store.readAll(filter, new Set(wanted.keys()), (subject, events, seq, bytes) => {
        const key = wanted.get(subject)!;
        const run = building.get(subject);
        if (run === null) return;
        if (run === undefined) progress?.read(); // a run's first transitions: one more history being read
        try {
          building.set(subject, this.replay(key, run, events, seq, bytes));
        } catch (err) {
          // Quarantined (see replay): the run stays broken for its callers, the rest recovers.
          building.set(subject, null);
          if (!(err instanceof DamagedRecordError)) this.log.error({ err, ...key }, 'could not rebuild run');
        }
      }, (subject) => { building.get(subject)?.kill(); building.set(subject, null); });
    }
    const rebuilt: Execution[] = [];
    for (const run of building.values()) {
      if (!run) continue;
      run.replayed();
      run.actors.restoreHeartbeats(undefined, this.machines.clock.now());
      rebuilt.push(run);
    }
    let n = 0;
    await forEachPooled(rebuilt, this.opts.recoveryConcurrency ?? RECOVERY_CONCURRENCY, async (run) => {
      const id = runId(run.key);
      await this.visibility(run);
      if (run.isClosed) {
        this.opts.effects?.afterCommit(run, [run.log.last]);
        await this.afterClose(run);
        return;
      }
      this.host.add(id, run);
      await this.requeueUnstarted(run);
      this.opts.effects?.resume(run);
      // Rebuilt runs sleep at once (deadlines armed in the wake-up heap): recovering many runs
      // does not need memory for all of them at the same time.
      this.host.sleep(id, run);
      n++;
      progress?.rebuilt();
    });
    return n;
  }

  private enqueue(run: Execution, kind: 'd' | 'a', e: HistoryEvent): void {
    const taskList = (e.attrs.taskList as { name: string }).name;
    const t: TaskMessage = { ...run.key, kind, taskList, scheduledEventId: e.id, priority: Number(e.attrs.taskPriority ?? 0) || 0 };
    this.host.ledger.enqueue(runId(run.key), `${kind}${e.id}`, t);
  }

  /**
   * After a rebuild, tasks that were scheduled but never started go back on their queues (a message
   * still held for a dead node's poller is replaced, see TaskQueues.requeue).
   */
  private async requeueUnstarted(run: Execution): Promise<void> {
    const s = run.state;
    if (s.decision && s.decision.startedEventId === null) this.enqueue(run, 'd', await run.log.get(s.decision.scheduledEventId));
    for (const a of Object.values(s.activities)) if (a.startedEventId === null) this.enqueue(run, 'a', await run.log.get(a.scheduledEventId));
  }

  /** Publishes the run's visibility record (before a closed run frees its workflowId). */
  private async visibility(run: Execution): Promise<void> {
    await this.opts.onVisibility?.(run).catch((err) => this.log.warn({ err, ...run.key }, 'visibility update failed'));
  }

  async afterCommit(run: Execution, events: readonly HistoryEvent[]): Promise<void> {
    this.opts.onCommit?.(run, events);
    const visible = events.some((e) => VISIBLE.has(e.type)) ? this.visibility(run) : undefined;
    for (const e of events) {
      switch (e.type) {
        case 'DecisionTaskScheduled': this.enqueue(run, 'd', e); break;
        case 'ActivityTaskScheduled': this.enqueue(run, 'a', e); break;
        case 'DecisionTaskStarted': this.host.ledger.started(runId(run.key), `d${e.attrs.scheduledEventId as number}`); break;
        case 'ActivityTaskStarted': this.host.ledger.started(runId(run.key), `a${e.attrs.scheduledEventId as number}`); break;
        case 'DecisionTaskTimedOut': this.host.ledger.drop(runId(run.key), `d${e.attrs.scheduledEventId as number}`); break;
        case 'ActivityTaskTimedOut':
        case 'ActivityTaskCanceled': this.host.ledger.drop(runId(run.key), `a${e.attrs.scheduledEventId as number}`); break;
        default: break;
      }
    }
    await visible;
    this.opts.effects?.afterCommit(run, events);
    if (run.isClosed) await this.afterClose(run);
  }

  /** A closed run leaves memory, frees its workflowId and drops its unstarted tasks. */
  private async afterClose(run: Execution): Promise<void> {
    const id = runId(run.key);
    this.closing.add(id);
    try {
      await this.cleanUpClosed(id, run);
    } finally {
      this.closing.delete(id);
    }
  }

  private async cleanUpClosed(id: string, run: Execution): Promise<void> {
    this.host.drop(id, run);
    this.host.ledger.dropAll(id);
    // Continued as new: the workflowId passes straight to the successor (handOver); freeing it here
    // would race with that hand-over and let another start take the workflowId in between.
    if (run.state.closeStatus !== 'CONTINUED_AS_NEW') {
      const open = await this.openRun(run.key.domain, run.key.workflowId);
      if (open?.runId === run.key.runId) await this.release(run.key.domain, run.key.workflowId, open.revision);
    }
    await this.opts.onClosed?.(run).catch((err) => this.log.warn({ err, ...run.key }, 'close bookkeeping failed'));
  }

  invalidate(run: Execution, err: unknown): void {
    this.host.invalidate(runId(run.key), run, err);
  }

  onError(run: Execution, err: unknown): void {
    if (err instanceof Fault) return;
    this.log.error({ err, workflowId: run.key.workflowId, runId: run.key.runId }, 'execution error');
  }

  /** Reserves a workflowId for a new run; WorkflowExecutionAlreadyStartedFault if one is open. */
  async reserve(domain: string, workflowId: string, rec: OpenRunRecord): Promise<number> {
    try {
      return await this.nats.runs.create(runsKey(domain, workflowId), encode({ ...rec, domain, workflowId }));
    } catch (e) {
      if ((e as { code?: number }).code === 10071) {
        throw fault.alreadyStarted();
      }
      throw e;
    }
  }

  /**
   * Every open-run record, in one ordered read of the af_runs bucket's stream (one message per key:
   * the bucket keeps no history), instead of a get per key.
   */
  private async openRunRecords(): Promise<(OpenRunRecord & { domain: string; workflowId: string })[]> {
    const stream = `KV_${this.nats.subjects.buckets.runs}`;
    const out: (OpenRunRecord & { domain: string; workflowId: string })[] = [];
    for await (const m of readToEnd(this.nats.js, stream, { batch: 10_000 })) {
      if (m.headers?.get('KV-Operation') || m.data.length === 0) continue; // a delete marker
      // A damaged record is skipped (quarantined): its run is not recovered, every other one is.
      const rec = this.quarantine.tryDecode<OpenRunRecord & { domain: string; workflowId: string }>('runs', m.data, { stream, subject: m.subject, seq: m.seq });
      if (rec) out.push(rec);
    }
    return out;
  }

  /** The open run of a workflowId as af_runs records it, or undefined. */
  async openRun(domain: string, workflowId: string): Promise<(OpenRunRecord & { revision: number }) | undefined> {
    const key = runsKey(domain, workflowId);
    const e = await this.nats.runs.get(key);
    if (!e || e.operation !== 'PUT') return undefined;
    const at = { stream: `KV_${this.nats.subjects.buckets.runs}`, subject: `$KV.${this.nats.subjects.buckets.runs}.${key}`, seq: e.revision };
    return { ...this.quarantine.decode<OpenRunRecord>('runs', e.value, at), revision: e.revision };
  }

  /**
   * Continue-as-new: hands the workflowId from the closing run to its successor. Idempotent (a
   * retry after a crash finds the successor already recorded).
   */
  async handOver(domain: string, workflowId: string, fromRunId: string, rec: OpenRunRecord): Promise<number | undefined> {
    const cur = await this.openRun(domain, workflowId);
    if (cur?.runId === rec.runId) return undefined;
    const value = encode({ ...rec, domain, workflowId });
    if (!cur) return this.nats.runs.create(runsKey(domain, workflowId), value);
    if (cur.runId !== fromRunId) throw fault.alreadyStarted();
    return this.nats.runs.update(runsKey(domain, workflowId), value, cur.revision);
  }

  async release(domain: string, workflowId: string, revision: number): Promise<void> {
    await this.nats.runs.delete(runsKey(domain, workflowId), { previousSeq: revision }).catch(() => undefined);
  }



  /** Forgets a partition this node no longer owns (see ExecutionHost.releasePartition). Writes nothing. */
  releasePartition(partition: number, settleMs = 2000): Promise<void> {
    return this.host.releasePartition(partition, settleMs);
  }

  /** Stops every actor once the operations already running have finished (graceful shutdown). */
  stop(): Promise<void> {
    return this.host.stop();
  }
}
