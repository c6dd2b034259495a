import type { Logger } from 'pino';
import { FeedLoop } from './feed-loop.js';
import type { ServiceContext } from '../service/context.js';
import { requireExecution } from '../sfn/execution-lookup.js';
import { describeExecution } from '../sfn/operations/describe-execution.js';
import { getExecutionHistory } from '../sfn/operations/get-execution-history.js';
import type { SfnWireEvent } from '../sfn/kind/sfn-events.js';

/** What a Step Functions feed pushes: new history events (wire form) and the execution's description. */
export interface SfnUpdate {
  /** True on the first message: `events` is the whole history and `definition` is set. */
  reset: boolean;
  /** Events the page had before this message. */
  from: number;
  events: SfnWireEvent[];
  /** DescribeExecution's answer, as every SDK gets it. */
  execution: Record<string, unknown>;
  /** The definition the execution runs (not the state machine's current one, which may have been updated since). */
  definition?: string;
  now: number;
}

export interface SfnSink {
  update(u: SfnUpdate): void;
  error(message: string): void;
  ready(): boolean;
}

interface Feed { arn: string; sink: SfnSink; sent: number; status: string; final: boolean; detached: boolean; busy: boolean }

/**
 * The console's live view of Step Functions executions: one loop for all open streams, every
 * `intervalMs`, reading through the same operations the gateways serve (DescribeExecution,
 * GetExecutionHistory), so the page sees exactly what an SDK sees. A feed gets a message only when
 * the history grew or the status changed; a closed execution's feed ends once everything is sent.
 */
export class SfnFeeds {
  private readonly loop: FeedLoop<Feed>;

  constructor(private readonly ctx: ServiceContext, private readonly log: Logger, intervalMs = 300) {
    this.loop = new FeedLoop<Feed>(async (feeds) => { await Promise.all(feeds.map((f) => this.refresh(f))); }, intervalMs);
  }

  get size(): number {
    return this.loop.size;
  }

  /** Starts a feed; the first update (the whole history and the definition) follows at once. */
  watch(arn: string, sink: SfnSink): () => void {
    const feed: Feed = { arn, sink, sent: 0, status: '', final: false, detached: false, busy: false };
    void this.refresh(feed);
    return this.loop.add(feed);
  }

  stop(): void {
    this.loop.stop();
  }

  private async refresh(feed: Feed): Promise<void> {
    if (feed.final || feed.detached || feed.busy || !feed.sink.ready()) return;
    feed.busy = true;
    try {
      await this.push(feed);
    } catch (err) {
      const name = (err as Error).name;
      if (feed.sent === 0 && (name === 'ExecutionDoesNotExist' || name === 'InvalidArn')) {
        feed.final = true;
        feed.sink.error(`${name}: ${(err as Error).message}`);
      } else {
        this.log.debug({ err, executionArn: feed.arn }, 'console feed refresh failed; retrying on the next tick');
      }
    } finally {
      feed.busy = false;
    }
  }

  private async push(feed: Feed): Promise<void> {
    const execution = await describeExecution(this.ctx, { executionArn: feed.arn }) as Record<string, unknown>;
    const events = await this.history(feed.arn);
    const status = String(execution.status);
    if (feed.detached || (events.length === feed.sent && status === feed.status)) return;
    const reset = feed.sent === 0;
    const definition = reset ? (await requireExecution(this.ctx, feed.arn)).definition : undefined;
    feed.sink.update({ reset, from: feed.sent, events: events.slice(feed.sent), execution, definition, now: this.ctx.clock.now() });
    feed.sent = events.length;
    feed.status = status;
    // Closed, and the closing event is sent (the record may be written a moment before the history is read).
    const last = events.at(-1)?.type ?? '';
    if (status !== 'RUNNING' && status !== 'PENDING_REDRIVE' && last.startsWith('Execution') && last !== 'ExecutionStarted') feed.final = true;
  }

  /** The whole history, page by page, as GetExecutionHistory answers it. */
  private async history(executionArn: string): Promise<SfnWireEvent[]> {
    const out: SfnWireEvent[] = [];
    let nextToken: string | undefined;
    do {
      const page = await getExecutionHistory(this.ctx, { executionArn, maxResults: 1000, nextToken }) as { events: SfnWireEvent[]; nextToken?: string };
      out.push(...page.events);
      nextToken = page.nextToken;
    } while (nextToken);
    return out;
  }
}
