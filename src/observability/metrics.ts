import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HistoryEvent, TimeoutType } from '../../machines/swf/history-event.js';
import { CLOSE_EVENTS } from '../../machines/swf/execution-state.js';

type Kind = 'decision' | 'activity';

/** The execution kinds of the engine (label `kind` of actorflow_open_executions). */
export type ExecutionKindName = 'swf' | 'sfn';

/** A Step Functions history event as the metrics read it. */
interface SfnEventLike { type: string }

const SFN_CLOSE: Record<string, string> = {
  ExecutionSucceeded: 'SUCCEEDED', ExecutionFailed: 'FAILED', ExecutionTimedOut: 'TIMED_OUT', ExecutionAborted: 'ABORTED',
};
const SFN_TASK_EVENTS: Record<string, string> = {
  ActivityScheduled: 'scheduled', ActivityStarted: 'started', ActivitySucceeded: 'succeeded', ActivityFailed: 'failed', ActivityTimedOut: 'timed_out',
};

/** What the gauges read at scrape time. */
export interface MetricSources {
  /** Open executions this node owns, per kind: awake (in memory), or asleep (only their next deadline kept). */
  openExecutions(): Record<ExecutionKindName, { awake: number; asleep: number }>;
  /** XState actors in memory, by kind. */
  actors(): { workflow: number; decision: number; activity: number; timer: number };
  /** Long polls held on this node, by kind. */
  waitingPolls(): { decision: number; activity: number };
  /** Owner calls made on this node so far: in-process (`local`) or sent to the owner node (`remote`). */
  ownerCalls(): { local: number; remote: number };
}

export interface MetricsOptions {
  /** Also export prom-client's process and Node.js metrics (process_*, nodejs_*). Default true. */
  defaultMetrics?: boolean;
}

/** Seconds, from a sync match (~1 ms) to a task that waited minutes for a worker. */
const DISPATCH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Seconds; one awaited JetStream R1 publish takes ~0.2 ms, R3 ~0.5 ms. */
const APPEND_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const TIMEOUT_TYPES: readonly TimeoutType[] = ['START_TO_CLOSE', 'SCHEDULE_TO_START', 'SCHEDULE_TO_CLOSE', 'HEARTBEAT'];

/**
 * The Prometheus metrics of one engine node, in a registry of its own (several nodes in one
 * process do not clash). Counters are taken from the committed history events, in one place
 * (`committed`, called by the partition owner after every persisted transition); gauges are read
 * at scrape time; the append histogram times each successful JetStream append of a transition.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly started: Counter;
  private readonly closed: Counter<'status'>;
  private readonly events: Counter;
  private readonly scheduled: Counter<'kind'>;
  private readonly taskStarted: Counter<'kind'>;
  private readonly completed: Counter<'kind'>;
  private readonly failed: Counter<'kind'>;
  private readonly canceled: Counter<'kind'>;
  private readonly timedOut: Counter<'kind' | 'timeout_type'>;
  private readonly timers: Counter<'event'>;
  private readonly dispatch: Histogram<'kind'>;
  private readonly append: Histogram;
  private readonly appendFailures: Counter<'reason'>;
  private readonly dropped: Counter<'subject' | 'reason'>;
  private readonly quarantine: Counter<'kind'>;
  private readonly sfnStarted: Counter;
  private readonly sfnClosed: Counter<'status'>;
  private readonly sfnEvents: Counter;
  private readonly sfnTransitions: Counter;
  private readonly sfnTasks: Counter<'event'>;
  private sources: MetricSources | undefined;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    const read = <T>(f: (s: MetricSources) => T): T | undefined => (this.sources ? f(this.sources) : undefined);
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });

    this.started = counter('actorflow_executions_started_total', 'Workflow executions started (WorkflowExecutionStarted events)');
    this.closed = counter('actorflow_executions_closed_total', 'Workflow executions closed, by close status', ['status']);
    this.events = counter('actorflow_history_events_total', 'History events persisted');
    this.scheduled = counter('actorflow_tasks_scheduled_total', 'Tasks scheduled (DecisionTaskScheduled, ActivityTaskScheduled)', ['kind']);
    this.taskStarted = counter('actorflow_tasks_started_total', 'Tasks handed to a poller (DecisionTaskStarted, ActivityTaskStarted)', ['kind']);
    this.completed = counter('actorflow_tasks_completed_total', 'Tasks completed (DecisionTaskCompleted, ActivityTaskCompleted)', ['kind']);
    this.failed = counter('actorflow_tasks_failed_total', 'Activity tasks failed (ActivityTaskFailed)', ['kind']);
    this.canceled = counter('actorflow_tasks_canceled_total', 'Activity tasks canceled (ActivityTaskCanceled)', ['kind']);
    this.timedOut = counter('actorflow_tasks_timed_out_total', 'Tasks timed out, by timeout type', ['kind', 'timeout_type']);
    this.timers = counter('actorflow_timers_total', 'Timer events (TimerStarted, TimerFired, TimerCanceled)', ['event']);
    this.dispatch = new Histogram({
      name: 'actorflow_task_dispatch_latency_seconds', help: 'From a task\'s Scheduled event to its Started event (event timestamps)',
      labelNames: ['kind'], buckets: DISPATCH_BUCKETS, registers,
    });
    this.append = new Histogram({
      name: 'actorflow_history_append_seconds', help: 'One successful JetStream append of a transition (publish to ack)',
      buckets: APPEND_BUCKETS, registers,
    });
    this.appendFailures = counter('actorflow_history_append_failures_total', 'JetStream appends that failed (conflict: fenced off by another writer)', ['reason']);
    this.dropped = counter('actorflow_nats_requests_dropped_total',
      'NATS requests dropped unanswered (reply_subject: not a client inbox, so answering could write into storage)', ['subject', 'reason']);
    this.quarantine = counter('actorflow_quarantined_records_total',
      'Stored messages that do not decode or fit their shape, left in place for `actorflow quarantine` (one count per message and node)', ['kind']);

    this.sfnStarted = counter('actorflow_sfn_executions_started_total', 'Step Functions executions started (ExecutionStarted events)');
    this.sfnClosed = counter('actorflow_sfn_executions_closed_total', 'Step Functions executions closed, by status', ['status']);
    this.sfnEvents = counter('actorflow_sfn_history_events_total', 'Step Functions history events persisted');
    this.sfnTransitions = counter('actorflow_sfn_state_transitions_total', 'Step Functions state transitions (states entered)');
    this.sfnTasks = counter('actorflow_sfn_activity_tasks_total', 'Step Functions activity tasks, by event (scheduled, started, succeeded, failed, timed_out)', ['event']);

    new Gauge({
      name: 'actorflow_open_executions', help: 'Open executions owned by this node, by kind (swf, sfn): awake in memory or asleep',
      labelNames: ['kind', 'state'], registers,
      collect() {
        const o = read((s) => s.openExecutions());
        for (const kind of ['swf', 'sfn'] as const) {
          this.set({ kind, state: 'awake' }, o?.[kind].awake ?? 0);
          this.set({ kind, state: 'asleep' }, o?.[kind].asleep ?? 0);
        }
      },
    });
    new Gauge({
      name: 'actorflow_actors', help: 'XState actors in memory, by kind', labelNames: ['kind'], registers,
      collect() {
        for (const [kind, n] of Object.entries(read((s) => s.actors()) ?? {})) this.set({ kind }, n);
      },
    });
    new Gauge({
      name: 'actorflow_polls_waiting', help: 'Long polls (PollForDecisionTask, PollForActivityTask) held on this node', labelNames: ['kind'], registers,
      collect() {
        for (const [kind, n] of Object.entries(read((s) => s.waitingPolls()) ?? {})) this.set({ kind }, n);
      },
    });

    new Counter({
      name: 'actorflow_owner_calls_total', help: 'Requests for an execution served on its owner: on this node (local) or sent to another node (remote)',
      labelNames: ['where'], registers,
      collect() {
        const c = read((s) => s.ownerCalls());
        this.reset();
        this.inc({ where: 'local' }, c?.local ?? 0);
        this.inc({ where: 'remote' }, c?.remote ?? 0);
      },
    });

    // Every known series starts at 0, so rates work from the first scrape.
    this.started.inc(0);
    this.events.inc(0);
    for (const status of Object.values(CLOSE_EVENTS)) this.closed.inc({ status }, 0);
    for (const kind of ['decision', 'activity'] as const) {
      for (const c of [this.scheduled, this.taskStarted, this.completed]) c.inc({ kind }, 0);
      this.dispatch.zero({ kind });
    }
    this.failed.inc({ kind: 'activity' }, 0);
    this.canceled.inc({ kind: 'activity' }, 0);
    this.timedOut.inc({ kind: 'decision', timeout_type: 'START_TO_CLOSE' }, 0);
    for (const t of TIMEOUT_TYPES) this.timedOut.inc({ kind: 'activity', timeout_type: t }, 0);
    for (const event of ['started', 'fired', 'canceled']) this.timers.inc({ event }, 0);
    for (const reason of ['conflict', 'error']) this.appendFailures.inc({ reason }, 0);
    for (const subject of ['api', 'owner']) for (const reason of ['no_reply', 'reply_subject']) this.dropped.inc({ subject, reason }, 0);
    this.sfnStarted.inc(0);
    this.sfnEvents.inc(0);
    this.sfnTransitions.inc(0);
    for (const status of Object.values(SFN_CLOSE)) this.sfnClosed.inc({ status }, 0);
    for (const event of Object.values(SFN_TASK_EVENTS)) this.sfnTasks.inc({ event }, 0);
  }

  /** Where the gauges read from (the node's owner and task lists, built after the store). */
  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  /**
   * Counts one persisted transition. `history` looks up an event of the run without I/O (undefined
   * when it is no longer in memory): the dispatch latency of a Started event is read from its
   * Scheduled event there.
   */
  committed(history: (id: number) => HistoryEvent | undefined, events: readonly HistoryEvent[]): void {
    this.events.inc(events.length);
    for (const e of events) {
      const status = CLOSE_EVENTS[e.type];
      if (status) { this.closed.inc({ status }); continue; }
      switch (e.type) {
        case 'WorkflowExecutionStarted': this.started.inc(); break;
        case 'DecisionTaskScheduled': this.scheduled.inc({ kind: 'decision' }); break;
        case 'ActivityTaskScheduled': this.scheduled.inc({ kind: 'activity' }); break;
        case 'DecisionTaskStarted': this.startedTask('decision', history, e); break;
        case 'ActivityTaskStarted': this.startedTask('activity', history, e); break;
        case 'DecisionTaskCompleted': this.completed.inc({ kind: 'decision' }); break;
        case 'ActivityTaskCompleted': this.completed.inc({ kind: 'activity' }); break;
        case 'ActivityTaskFailed': this.failed.inc({ kind: 'activity' }); break;
        case 'ActivityTaskCanceled': this.canceled.inc({ kind: 'activity' }); break;
        case 'DecisionTaskTimedOut': this.timedOut.inc({ kind: 'decision', timeout_type: String(e.attrs.timeoutType) }); break;
        case 'ActivityTaskTimedOut': this.timedOut.inc({ kind: 'activity', timeout_type: String(e.attrs.timeoutType) }); break;
        case 'TimerStarted': this.timers.inc({ event: 'started' }); break;
        case 'TimerFired': this.timers.inc({ event: 'fired' }); break;
        case 'TimerCanceled': this.timers.inc({ event: 'canceled' }); break;
        default: break;
      }
    }
  }

  /** Counts one persisted Step Functions transition (called by its execution kind after every commit). */
  sfnCommitted(events: readonly SfnEventLike[]): void {
    this.sfnEvents.inc(events.length);
    for (const e of events) {
      const status = SFN_CLOSE[e.type];
      if (status) { this.sfnClosed.inc({ status }); continue; }
      const task = SFN_TASK_EVENTS[e.type];
      if (task) { this.sfnTasks.inc({ event: task }); continue; }
      if (e.type === 'ExecutionStarted') this.sfnStarted.inc();
      else if (e.type.endsWith('StateEntered')) this.sfnTransitions.inc();
    }
  }

  private startedTask(kind: Kind, history: (id: number) => HistoryEvent | undefined, e: HistoryEvent): void {
    this.taskStarted.inc({ kind });
    const id = e.attrs.scheduledEventId as number;
    const scheduled = history(id);
    if (scheduled?.id === id) this.dispatch.observe({ kind }, Math.max(0, e.at - scheduled.at) / 1000);
  }

  /** Times one append (see MeteredHistoryStore). */
  appended(seconds: number): void {
    this.append.observe(seconds);
  }

  appendFailed(reason: 'conflict' | 'error'): void {
    this.appendFailures.inc({ reason });
  }

  /** A NATS request on `api` or `owner` (af.part) subjects dropped unanswered. */
  requestDropped(subject: 'api' | 'owner', reason: string): void {
    this.dropped.inc({ subject, reason });
  }

  /** One stored message quarantined (see src/history/quarantine.ts). */
  quarantined(kind: string): void {
    this.quarantine.inc({ kind });
  }

  /** The Prometheus text exposition of every metric of this node. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A GET handler for the HTTP gateway (`addGetRoute('/metrics', …)`). */
  handler(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return async (_req, res) => {
      const body = await this.render();
      res.writeHead(200, { 'content-type': this.contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
      res.end(body);
    };
  }
}

/** Open executions of one kind on this node. */
interface OpenCounts { liveCount: number; sleepingCount: number }

/** The gauges' sources on a running node: its execution kinds' executions and its task lists' polls. */
export function nodeMetricSources(owner: OpenCounts & {
  liveExecutions(): Iterable<{ isDead: boolean; actors: { decision: unknown; activities: Map<unknown, unknown>; timers: Map<unknown, unknown> } }>;
}, sfn: OpenCounts, queues: { waitingPolls(): Record<'d' | 'a', number> }, router: { ownerCalls(): { local: number; remote: number } }): MetricSources {
  const counts = (k: OpenCounts) => ({ awake: k.liveCount, asleep: k.sleepingCount });
  return {
    openExecutions: () => ({ swf: counts(owner), sfn: counts(sfn) }),
    actors: () => {
      const n = { workflow: 0, decision: 0, activity: 0, timer: 0 };
      for (const run of owner.liveExecutions()) {
        if (run.isDead) continue;
        n.workflow++;
        if (run.actors.decision) n.decision++;
        n.activity += run.actors.activities.size;
        n.timer += run.actors.timers.size;
      }
      return n;
    },
    waitingPolls: () => {
      const w = queues.waitingPolls();
      return { decision: w.d, activity: w.a };
    },
    ownerCalls: () => router.ownerCalls(),
  };
}
