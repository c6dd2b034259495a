import { randomBytes } from 'node:crypto';
import { Fault } from '../protocol/faults.js';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import { appendRetrying, type HistoryStore } from '../history/history-store.js';
import type { EngineClock } from './clock.js';

/**
 * What every live execution has, whatever its kind: a serial command queue (one operation at a
 * time, in order), the fence of its next history append, and a kill switch. SWF runs and Step
 * Functions executions extend it; the execution host drives both through it (idleness, settling,
 * release, passivation).
 */
export abstract class LiveExecution {
  private tail: Promise<unknown> = Promise.resolve();
  private dead = false;
  /** Operations queued or running. */
  private pendingOps = 0;
  /** When the last operation finished (engine clock ms): idle executions may be put to sleep. */
  lastActive: number;
  /** Identifies this live copy in msgIDs (see HistoryStore.append). */
  private readonly writer = randomBytes(6).toString('base64url');

  protected constructor(
    /** The history subject this execution appends to. */
    readonly subject: string,
    /** The id its history messages carry (SWF: the runId; Step Functions: the execution ARN). */
    private readonly historyId: string,
    protected readonly store: HistoryStore,
    protected readonly clock: EngineClock,
    /** The stream sequence of the subject's last message: the fence of the next append. */
    protected lastSeq: number,
  ) {
    this.lastActive = clock.now();
  }

  get isDead(): boolean {
    return this.dead;
  }

  get busy(): boolean {
    return this.pendingOps > 0;
  }

  /** Resolves when every operation queued so far has finished. */
  settled(): Promise<unknown> {
    return this.tail;
  }

  /** Runs `fn` after every earlier operation on this execution has finished. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    this.pendingOps++;
    // Time-skipping: time does not jump while an operation is queued or running.
    const release = this.clock.skipping?.hold();
    const run = this.tail.then(() => {
      if (this.dead) throw new Fault('InternalFailure', 'execution was reloaded');
      return fn();
    }).finally(() => {
      this.pendingOps--;
      this.lastActive = this.clock.now();
      release?.();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * One history message behind the fence. Transient failures are retried with the same msgID (for
   * seconds: an R3 stream electing a leader); a lost fence or a message too large is thrown at once.
   */
  protected async appendFenced(events: readonly HistoryEvent[], extra?: unknown): Promise<void> {
    this.lastSeq = await appendRetrying(() => this.store.append(this.subject, this.historyId, events as HistoryEvent[], this.lastSeq, this.writer, extra));
  }

  /** The earliest deadline this execution's actors wait for (epoch ms; Infinity when none). */
  abstract nextDeadline(): number;

  /** Stops the actors' timers. */
  protected abstract stopActors(): void;

  /** Stops the actors' timers (shutdown, hand-over): operations already queued still finish. */
  freeze(): void {
    this.stopActors();
  }

  /** Stops the actors; the execution must be rebuilt from history before it is used again. */
  kill(): void {
    this.dead = true;
    this.stopActors();
  }
}
