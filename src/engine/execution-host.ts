import type { Logger } from 'pino';
import { Fault } from '../protocol/faults.js';
import { settledWithin } from '../protocol/settled-within.js';
import { HistoryConflictError } from '../history/history-store.js';
import { DamagedRecordError } from '../history/quarantine.js';
import type { EngineClock } from './clock.js';
import { DeadlineQueue } from './deadline-queue.js';
import { RebuildLater } from './rebuild-later.js';
import { SingleFlight } from './single-flight.js';
import type { LiveExecution } from './live-execution.js';
import { TaskLedger } from './task-ledger.js';
import type { TaskQueues } from '../matching/task-queues.js';

/**
 * What a sleeping execution keeps in memory: its partition and next deadline (its id is the map
 * key), plus whatever its kind must carry across the sleep (SWF: heartbeat clocks, which write no
 * history).
 */
export interface Sleeper<M = unknown> {
  partition: number;
  wakeAt: number;
  memo?: M;
}

/** How an execution kind (SWF runs, Step Functions executions) plugs into the host. */
export interface ExecutionKind<X extends LiveExecution, M = unknown> {
  /** `swf` or `sfn`: metrics labels and log lines. */
  readonly name: string;
  /** The execution's partition. */
  partitionOf(x: X): number;
  /**
   * Rebuilds an execution from its history, or undefined when it is closed or unknown. `sleeper` is
   * set when it slept here (its tasks are still queued; its memo is handed back). A kind adds the
   * execution to the host (`add`) once it is ready to serve.
   */
  load(id: string, sleeper: Sleeper<M> | undefined): Promise<X | undefined>;
  /** What a sleeping execution must keep (see Sleeper.memo). */
  memo?(x: X): M | undefined;
}

export interface HostOptions {
  /** Put an execution to sleep (drop its actors and history from memory) after this long without work. */
  sleepAfterMs: number;
  /** Whether this node owns the partition now (the router's view of the leases). */
  owns: (partition: number) => boolean;
  /** Another writer won the history fence of an execution in this partition (the lease manager checks it still owns it). */
  onConflict?: (partition: number) => void;
}

/**
 * The live executions of one kind on the partitions this node owns: a map of live copies, loaded
 * from history on demand (one load per id at a time), put to sleep when idle and woken at their
 * next deadline or by a command (the passivation heap), dropped when their partition goes, and
 * rebuilt later when a transition could not be stored. The same code for every kind.
 */
export class ExecutionHost<X extends LiveExecution, M = unknown> {
  private readonly live = new Map<string, X>();
  private readonly loading = new SingleFlight<string, X | undefined>();
  private readonly sleeping = new Map<string, Sleeper<M>>();
  private readonly wakeups: DeadlineQueue;
  private readonly sweeper: NodeJS.Timeout;
  private readonly rebuilds: RebuildLater;
  /** Queued task messages of this kind's executions. */
  readonly ledger: TaskLedger;
  private kind!: ExecutionKind<X, M>;

  constructor(queues: TaskQueues, private readonly clock: EngineClock, private readonly log: Logger, private readonly opts: HostOptions) {
    this.ledger = new TaskLedger(queues);
    this.rebuilds = new RebuildLater((id, err) => log.warn({ err, id }, 'could not rebuild the execution yet; trying again'));
    this.wakeups = new DeadlineQueue(clock, (id, at) => {
      const s = this.sleeping.get(id);
      if (s && s.wakeAt === at) this.wake(id, s);
    });
    this.sweeper = setInterval(() => this.sleepIdle(), Math.max(50, Math.min(5000, opts.sleepAfterMs / 2)));
    this.sweeper.unref();
  }

  /** Binds the kind (it is built with this host: the two refer to each other). */
  serve(kind: ExecutionKind<X, M>): this {
    this.kind = kind;
    return this;
  }

  get liveCount(): number {
    return this.live.size;
  }

  get sleepingCount(): number {
    return this.sleeping.size;
  }

  values(): IterableIterator<X> {
    return this.live.values();
  }

  /** The live copy, if it is in memory and usable. */
  get(id: string): X | undefined {
    const x = this.live.get(id);
    return x && !x.isDead ? x : undefined;
  }

  isAsleep(id: string): boolean {
    return this.sleeping.has(id);
  }

  /**
   * The live execution, rebuilt from history when it is open but not in memory; undefined if closed
   * or unknown. A command for a partition this node is handing over is told to retry (its new owner
   * answers it; answering "no such execution" here would lose, say, a worker's answer).
   */
  async open(id: string, partition?: number): Promise<X | undefined> {
    const hit = this.get(id);
    if (hit) return hit;
    const p = partition ?? this.sleeping.get(id)?.partition;
    if (p !== undefined && !this.opts.owns(p)) throw new Fault('ServiceUnavailable', `the partition of ${id} is changing owner`);
    return this.load(id);
  }

  private load(id: string): Promise<X | undefined> {
    return this.loading.run(id, () => this.kind.load(id, this.sleeping.get(id)));
  }

  /** A sleeping execution's deadline came: it is rebuilt (its timers fire from the restored state). */
  private wake(id: string, s: Sleeper<M>): void {
    // Time-skipping: time does not jump while a run wakes (its due timers fire once it is in). A read
    // that loads a sleeping run does not hold time: a test polling for a result would stop it.
    const release = this.clock.skipping?.hold();
    this.load(id).catch((err: unknown) => {
      if (err instanceof DamagedRecordError) return; // quarantined: it answers its fault
      this.log.error({ err, id }, 'wake-up failed; trying again');
      this.reopenLater(id, s.partition);
    }).finally(() => release?.());
  }

  /** Registers a live execution (a start, or a rebuild ready to serve); it is awake from now on. */
  add(id: string, x: X): void {
    this.live.set(id, x);
    this.sleeping.delete(id);
  }

  /** Removes a live copy (closed, or replaced) if it is still the one registered. */
  drop(id: string, x: X): void {
    if (this.live.get(id) === x) this.live.delete(id);
  }

  /**
   * Puts executions that had no work for `sleepAfterMs` to sleep: their actors stop, their state
   * leaves memory, and only the next deadline stays (in the wake-up heap).
   */
  sleepIdle(): number {
    const now = this.clock.now();
    let n = 0;
    for (const [id, x] of this.live) {
      if (now - x.lastActive < this.opts.sleepAfterMs) continue;
      if (this.sleep(id, x)) n++;
    }
    return n;
  }

  /** Puts one execution to sleep now, unless an operation is running on it. */
  sleep(id: string, x: X): boolean {
    if (x.busy || x.isDead) return false;
    const wakeAt = x.nextDeadline();
    const memo = this.kind.memo?.(x);
    x.kill();
    this.live.delete(id);
    const partition = this.kind.partitionOf(x);
    this.sleeping.set(id, memo === undefined ? { partition, wakeAt } : { partition, wakeAt, memo });
    if (Number.isFinite(wakeAt)) this.wakeups.push(id, wakeAt);
    return true;
  }

  /**
   * Registers an execution as asleep without building it (recovery from a kind's stored wake-up
   * time): it is rebuilt at `wakeAt` or by its next command.
   */
  sleepAt(id: string, partition: number, wakeAt: number): void {
    if (this.live.has(id)) return;
    this.sleeping.set(id, { partition, wakeAt });
    if (Number.isFinite(wakeAt)) this.wakeups.push(id, wakeAt);
  }

  /**
   * The live copy no longer matches the stored history (another writer won the fence, or the store
   * failed for good): it goes, and is rebuilt from history in a moment while this node owns it.
   */
  invalidate(id: string, x: X, err: unknown): void {
    const partition = this.kind.partitionOf(x);
    if (err instanceof HistoryConflictError) this.opts.onConflict?.(partition);
    this.log.warn({ err, id }, 'execution invalidated; it will be rebuilt from history');
    x.kill();
    this.drop(id, x);
    this.reopenLater(id, partition);
  }

  /** Rebuilds an execution in a moment (it has timers nobody else would fire), while this node owns it. */
  reopenLater(id: string, partition: number): void {
    const rebuild = () => this.open(id, partition).catch((err: unknown) => { if (!(err instanceof DamagedRecordError)) throw err; });
    this.rebuilds.schedule(id, rebuild, () => this.opts.owns(partition));
  }

  /**
   * Forgets a partition this node no longer owns: its live executions stop (operations already
   * running finish first, bounded by `settleMs`, so a graceful hand-over leaves their transitions in
   * history for the next owner), its sleeping ones and their wake-ups go. Writes nothing.
   */
  async releasePartition(partition: number, settleMs = 2000): Promise<void> {
    const going = [...this.live].filter(([, x]) => this.kind.partitionOf(x) === partition);
    for (const [, x] of going) x.freeze();
    const busy = new Set(going.map(([id]) => id));
    await settledWithin(Promise.all(going.map(([id, x]) => x.settled().then(() => busy.delete(id)))), settleMs);
    if (busy.size > 0) this.log.warn({ partition, busy: [...busy].slice(0, 5), count: busy.size }, 'executions still busy when the partition was released');
    const inP = (id: string) => this.sleeping.get(id)?.partition === partition;
    this.wakeups.removeWhere(inP);
    for (const [id, x] of going) {
      x.kill();
      this.drop(id, x);
      this.ledger.forget(id);
    }
    for (const [id, s] of this.sleeping) if (s.partition === partition) { this.sleeping.delete(id); this.ledger.forget(id); }
  }

  /** Stops every actor once the operations already running have finished (graceful shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.wakeups.stop();
    this.rebuilds.stop();
    for (const x of this.live.values()) x.freeze();
    await Promise.all([...this.live.values()].map((x) => x.settled()));
    for (const x of this.live.values()) x.kill();
    this.live.clear();
    this.sleeping.clear();
  }
}
