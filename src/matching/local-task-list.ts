import type { Subscription } from '@nats-io/transport-node';
import type { PulledTask, TaskLanes } from './task-lanes.js';
import type { TaskMessage } from './task-message.js';

/**
 * A task handed to a poller: straight from its owner (sync match), pulled from JetStream (`msg`),
 * or taken from the tasks its owner holds (`held`: its key in HeldTasks).
 */
export interface Delivery {
  task: TaskMessage;
  msg?: PulledTask;
  held?: string;
}

interface Waiter {
  resolve(d: Delivery | null): void;
  timer: NodeJS.Timeout;
}

/** With nothing queued, feeders wait for an arrival; this bounds the wait (an arrival missed in a reconnect). */
const FEED_IDLE_MS = 10_000;
/**
 * The stream is read again at least this often while feeders pull: a task put back by another
 * node (its poller went away, or it died and ack_wait ran out) is not published again, so only a
 * fresh look finds it, also when every queued task was handed to other pollers.
 */
const LOOK_EVERY_MS = 1000;
/** A pull for a task whose publish was just seen waits this long for the stream to store it. */
const FRESH_WAIT_MS = 200;
/** How long a damaged task message waits before it is offered (and recognized) again. */
const DAMAGED_REDELIVERY_MS = 10 * 60_000;
/** Concurrent pulls per task list and node: a backlog drains this many tasks per round trip. */
const MAX_FEEDERS = 16;

/**
 * The pollers of one task list waiting on this node. A task scheduled on this node goes to the
 * longest-waiting poller directly (no JetStream round trip); while pollers wait, feeders bring them
 * the tasks queued in JetStream, highest priority first and in order within a priority: each pull
 * takes from the highest priority known to hold a task. Which ones do is read from the stream, and
 * kept current by watching the list's subjects, so a task published anywhere wakes the feeders at
 * once, whatever its priority. (Tasks published within the same ~FRESH_WAIT_MS may go out in either
 * order: one pull may wait that long on a priority for a task whose publish it saw.)
 */
export class LocalTaskList {
  private readonly waiters: Waiter[] = [];
  private feeders = 0;
  /** Priorities that held tasks at the last look (plus those published since), highest first; null: look again. */
  private known: number[] | null = null;
  private looking: Promise<number[]> | null = null;
  /** Whether the last look found tasks (then all handed out to others when `known` runs dry), and when it was. */
  private lastLookFound = false;
  private lookedAt = 0;
  /** Priorities whose publish was seen and not pulled since. */
  private readonly fresh = new Set<number>();
  private watch: Subscription | undefined;
  private readonly sleepers = new Set<() => void>();
  /**
   * Tasks of executions this node owns that were scheduled while no poller waited here (see
   * HeldTasks), by priority then scheduling order (one given back goes first again), by key. A
   * poller here takes them first, without a pull and with no hop to the owner.
   */
  private readonly held = new Map<number, Map<string, TaskMessage>>();

  /**
   * `read` decodes a pulled message; undefined for a damaged one (quarantined). That one is put back
   * with a long delay instead of acked (a work queue would delete it), so it stays for the operator.
   */
  constructor(private readonly lanes: TaskLanes, private readonly onError: (e: unknown) => void,
    private readonly read: (msg: PulledTask) => TaskMessage | undefined,
    readonly identity: { domain: string; kind: 'd' | 'a'; taskList: string }) {}

  get waiting(): number {
    return this.waiters.length;
  }

  /** When the last poller left (epoch ms); 0 while anyone waits or a pull is out. */
  private idleAt = Date.now();

  /** True when nobody waits, no pull is out, nothing is held, and that has been so since before `t`. */
  idleSince(t: number): boolean {
    return this.waiters.length === 0 && this.feeders === 0 && this.held.size === 0 && this.idleAt !== 0 && this.idleAt < t;
  }

  /**
   * Keeps a task this node owns for the next poller here; a poller that waits gets it now (true).
   * `first`: one given back, offered before the others again.
   */
  hold(key: string, task: TaskMessage, first = false): boolean {
    if (this.closed) return false;
    if (this.offer({ task, held: key })) return true;
    const p = task.priority ?? 0;
    const lane = this.held.get(p);
    if (lane && first) this.held.set(p, new Map([[key, task], ...lane]));
    else if (lane) lane.set(key, task);
    else this.held.set(p, new Map([[key, task]]));
    return false;
  }

  /** Forgets held task `key` (it started, wherever, died, or moved); true when it was held. */
  unhold(key: string, priority: number): boolean {
    const lane = this.held.get(priority);
    if (!lane?.delete(key)) return false;
    if (lane.size === 0) this.held.delete(priority);
    return true;
  }

  /** The keys of the tasks held here, highest priority first, then in scheduling order. */
  heldKeys(): string[] {
    return [...this.held.entries()].sort(([a], [b]) => b - a).flatMap(([, lane]) => [...lane.keys()]);
  }

  /** Pollers wait here and no task is in sight (none held, none known in JetStream). */
  get starving(): boolean {
    return this.waiters.length > 0 && this.held.size === 0 && (this.known === null || this.known.length === 0);
  }

  /** The first held task of the highest held priority, when that is at least `atLeast`. */
  private takeHeld(atLeast: number | undefined): Delivery | undefined {
    let top: number | undefined;
    for (const p of this.held.keys()) if (top === undefined || p > top) top = p;
    if (top === undefined || (atLeast !== undefined && top < atLeast)) return undefined;
    const [key, task] = this.held.get(top)!.entries().next().value as [string, TaskMessage];
    this.unhold(key, top);
    return { task, held: key };
  }

  private touch(): void {
    this.idleAt = this.waiters.length === 0 && this.feeders === 0 ? Date.now() : 0;
  }

  /** Waits for a task until `deadline` (epoch ms); null when none came. */
  wait(deadline: number, signal?: AbortSignal): Promise<Delivery | null> {
    if (this.closed || signal?.aborted) return Promise.resolve(null);
    // A held task at once, when no higher priority was seen holding one (else the feeders decide).
    const mine = this.known && this.waiters.length === 0 ? this.takeHeld(this.known[0]) : undefined;
    if (mine) return Promise.resolve(mine);
    return new Promise((resolve) => {
      const leave = () => {
        clearTimeout(waiter.timer);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        if (this.waiters.length === 0) this.wakeFeeders();
        this.touch();
        resolve(null);
      };
      const waiter: Waiter = {
        resolve: (d) => { signal?.removeEventListener('abort', leave); resolve(d); },
        timer: setTimeout(leave, Math.max(0, deadline - Date.now())),
      };
      // A poller that went away leaves the queue at once, so no task is offered to it.
      signal?.addEventListener('abort', leave, { once: true });
      this.waiters.push(waiter);
      this.touch();
      if (this.starving) this.onStarving?.();
      this.feed();
    });
  }

  /** Called when a poller starts to wait with no task in sight (HeldTasks asks the owners for theirs). */
  onStarving?: () => void;

  /** Hands a task to a waiting poller; false when nobody waits here. */
  offer(d: Delivery): boolean {
    const w = this.waiters.shift();
    if (!w) return false;
    clearTimeout(w.timer);
    this.touch();
    w.resolve(d);
    return true;
  }

  /** A task was published to the list (seen on its subject, by any node). */
  private arrived(priority: number): void {
    this.fresh.add(priority);
    if (this.known && !this.known.includes(priority)) this.known = [...this.known, priority].sort((a, b) => b - a);
    this.wakeFeeders();
  }

  /** A task may be free again (put back by a poller of this node): look at the stream again. */
  recheck(): void {
    this.known = null;
    this.wakeFeeders();
  }

  private wakeFeeders(): void {
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => { clearTimeout(timer); this.sleepers.delete(wake); resolve(); };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  /** The highest priority that may hold a free task; undefined when none does. */
  private async nextLane(): Promise<number | undefined> {
    if (this.known?.length && Date.now() - this.lookedAt > LOOK_EVERY_MS) this.known = null;
    if (!this.known) {
      this.lookedAt = Date.now();
      this.looking ??= this.lanes.nonEmpty().finally(() => { this.looking = null; });
      const found = await this.looking;
      this.lastLookFound = found.length > 0;
      // Published while the stream was read: maybe not in what it answered.
      this.known ??= [...new Set([...found, ...this.fresh])].sort((a, b) => b - a);
    }
    return this.known[0];
  }

  /** Keeps one pull in flight per waiting poller, up to MAX_FEEDERS. */
  private feed(): void {
    if (this.feeders >= Math.min(this.waiters.length, MAX_FEEDERS)) return;
    this.feeders++;
    this.idleAt = 0;
    this.watch ??= this.lanes.watch((p) => this.arrived(p));
    void (async () => {
      try {
        while (this.waiters.length > 0 && this.feeders <= Math.min(this.waiters.length, MAX_FEEDERS)) {
          const priority = await this.nextLane();
          // A held task first, unless a higher priority holds a task of another node's (or an older
          // one, put back): within a priority, this node's own tasks go before older ones of others.
          const mine = this.takeHeld(priority);
          if (mine) {
            if (!this.offer(mine)) this.hold(mine.held!, mine.task, true);
            continue;
          }
          if (priority === undefined) {
            await this.sleep(this.lastLookFound ? LOOK_EVERY_MS : FEED_IDLE_MS);
            if (this.known?.length === 0) this.known = null;
            continue;
          }
          const msg = await this.lanes.pull(priority, this.fresh.delete(priority) ? FRESH_WAIT_MS : 0);
          if (!msg) {
            // Nothing free at this priority now: the next lower one, until the stream is read again.
            if (this.known) this.known = this.known.filter((p) => p !== priority);
            continue;
          }
          const task = this.read(msg);
          if (!task) { msg.nak(DAMAGED_REDELIVERY_MS); continue; }
          if (!this.offer({ task, msg })) { msg.nak(); this.recheck(); }
        }
      } catch (e) {
        this.onError(e);
        this.known = null;
        await new Promise((r) => setTimeout(r, 250));
      } finally {
        this.feeders--;
        this.touch();
      }
      this.feed();
    })();
  }

  /** Ends every wait at once (shutdown). */
  private closed = false;

  close(): void {
    this.closed = true;
    this.held.clear();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
    this.forget();
  }

  /** Stops watching the list and forgets its consumers (an idle list, or shutdown). */
  forget(): void {
    this.watch?.unsubscribe();
    this.watch = undefined;
    this.known = null;
    this.lanes.forget();
    this.wakeFeeders();
  }
}
