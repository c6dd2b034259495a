import type { Logger } from 'pino';

/** How often a long rebuild logs how far it got (ms). */
export const RECOVERY_LOG_MS = 5000;

/**
 * Counts of a rebuild in progress (partitions from history, on each PartitionHost in turn), logged
 * every `everyMs` while it lasts, so a long start-up shows it is moving and how far it got.
 */
export class RecoveryProgress {
  host = '';
  historiesRead = 0;
  runsRebuilt = 0;
  hostsDone = 0;
  private readonly t0 = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly log: Logger, readonly partitions: number, readonly hosts: number, everyMs = RECOVERY_LOG_MS) {
    this.timer = setInterval(() => this.report(), everyMs);
    this.timer.unref();
  }

  /** Recovery has moved on to this host (`swf`, `sfn`). */
  on(host: string): void {
    this.host = host;
  }

  read(): void {
    this.historiesRead++;
  }

  rebuilt(): void {
    this.runsRebuilt++;
  }

  hostDone(): void {
    this.hostsDone++;
  }

  private report(): void {
    this.log.info({
      partitions: this.partitions, host: this.host, hostsDone: this.hostsDone, hosts: this.hosts,
      historiesRead: this.historiesRead, runsRebuilt: this.runsRebuilt, ms: Date.now() - this.t0,
    }, 'recovery in progress');
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
