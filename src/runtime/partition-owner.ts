import type { Logger } from 'pino';
import type { HistoryEvent } from '../../machines/history-event.js';
import { Fault, fault } from '../domain/faults.js';
import type { HistoryStore } from '../history/history-store.js';
import type { TaskQueues } from '../matching/task-queues.js';
import type { Nats } from '../nats/infrastructure.js';
import { encode, decode } from '../nats/codec.js';
import { kvToken } from '../nats/subjects.js';
import { foldHistory, type ExecutionState } from '../../machines/execution-state.js';
import type { MachineSet } from './execution-actors.js';
import { Execution, type ExecutionHost, type RunKey } from './execution.js';

/** The open run of a workflowId, kept in KV `af_runs` (its create is the uniqueness check). */
export interface OpenRunRecord {
  runId: string;
  partition: number;
  startedAt: number;
}

/** A run's history and fold, for reads of runs that are not (or no longer) live here. */
export interface RunView {
  key: RunKey;
  events: HistoryEvent[];
  state: ExecutionState;
  live: Execution | undefined;
}

export const runsKey = (domain: string, workflowId: string) => `${kvToken(domain)}.${kvToken(workflowId)}`;

/**
 * Owns the runs of its partitions: a flat registry of live executions, loaded from history on
 * demand, with the NATS effects each transition needs once it is persisted.
 */
export class PartitionOwner implements ExecutionHost {
  private readonly live = new Map<string, Execution>();
  private readonly loading = new Map<string, Promise<Execution | undefined>>();
  private readonly taskSeqs = new Map<string, number>();

  constructor(
    readonly nats: Nats,
    readonly store: HistoryStore,
    readonly queues: TaskQueues,
    readonly machines: MachineSet,
    readonly log: Logger,
  ) {}

  subject(key: RunKey): string {
    return this.nats.subjects.history(key.partition, key.domain, key.workflowId, key.runId);
  }

  private static id(k: { domain: string; workflowId: string; runId: string }): string {
    return `${k.domain}\u0000${k.workflowId}\u0000${k.runId}`;
  }

  get liveCount(): number {
    return this.live.size;
  }

  /** The runs live in memory here (for introspection and tests). */
  liveRuns(): RunKey[] {
    return [...this.live.values()].map((r) => r.key);
  }

  /** Registers a freshly started run whose first transition is already persisted. */
  async adopt(key: RunKey, events: HistoryEvent[], lastSeq: number): Promise<Execution> {
    const run = new Execution(key, this, { events, lastSeq });
    this.live.set(PartitionOwner.id(key), run);
    await this.afterCommit(run, events);
    return run;
  }

  /** The live run, rebuilt from history if it is open but not in memory; undefined if closed or unknown. */
  async open(key: RunKey): Promise<Execution | undefined> {
    const id = PartitionOwner.id(key);
    const hit = this.live.get(id);
    if (hit && !hit.isDead) return hit;
    let p = this.loading.get(id);
    if (!p) {
      p = this.rebuild(key).finally(() => this.loading.delete(id));
      this.loading.set(id, p);
    }
    return p;
  }

  private async rebuild(key: RunKey): Promise<Execution | undefined> {
    const entry = await this.nats.runs.get(runsKey(key.domain, key.workflowId));
    if (!entry || entry.operation !== 'PUT' || decode<OpenRunRecord>(entry.value).runId !== key.runId) return undefined;
    const history = await this.store.read(this.subject(key));
    if (history.events.length === 0) return undefined;
    const run = new Execution(key, this, history);
    if (run.isClosed) {
      await this.afterClose(run);
      return undefined;
    }
    this.live.set(PartitionOwner.id(key), run);
    await this.requeueUnstarted(run);
    return run;
  }

  /** The run live or from history; UnknownResourceFault when there is no such run. */
  async view(key: RunKey): Promise<RunView> {
    const run = await this.open(key);
    if (run) return { key, events: run.events, state: run.state, live: run };
    const { events } = await this.store.read(this.subject(key));
    if (events.length === 0) throw fault.unknownExecution(key.workflowId, key.runId);
    return { key, events, state: foldHistory(events), live: undefined };
  }

  /** Rebuilds every open run of the given partitions (start-up and takeover). */
  async recover(partitions: ReadonlySet<number>): Promise<number> {
    let n = 0;
    const keys: string[] = [];
    for await (const k of await this.nats.runs.keys()) keys.push(k);
    for (const k of keys) {
      const e = await this.nats.runs.get(k);
      if (!e || e.operation !== 'PUT') continue;
      const rec = decode<OpenRunRecord & { domain: string; workflowId: string }>(e.value);
      if (!partitions.has(rec.partition)) continue;
      if (await this.open({ domain: rec.domain, workflowId: rec.workflowId, runId: rec.runId, partition: rec.partition })) n++;
    }
    return n;
  }

  private taskKey(run: Execution, kind: 'd' | 'a', scheduledEventId: number): string {
    return `${PartitionOwner.id(run.key)}\u0000${kind}${scheduledEventId}`;
  }

  private async enqueue(run: Execution, kind: 'd' | 'a', e: HistoryEvent): Promise<void> {
    const taskList = (e.attrs.taskList as { name: string }).name;
    const seq = await this.queues.dispatch({ ...run.key, kind, taskList, scheduledEventId: e.id });
    if (seq !== undefined) this.taskSeqs.set(this.taskKey(run, kind, e.id), seq);
  }

  private async dequeue(run: Execution, kind: 'd' | 'a', scheduledEventId: number): Promise<void> {
    const k = this.taskKey(run, kind, scheduledEventId);
    const seq = this.taskSeqs.get(k);
    this.taskSeqs.delete(k);
    if (seq !== undefined) await this.queues.remove(seq);
  }

  /** After a rebuild, tasks that were scheduled but never started go back on their queues (msgID dedupes). */
  private async requeueUnstarted(run: Execution): Promise<void> {
    const s = run.state;
    const byId = new Map(run.events.map((e) => [e.id, e]));
    if (s.decision && s.decision.startedEventId === null) await this.enqueue(run, 'd', byId.get(s.decision.scheduledEventId)!);
    for (const a of Object.values(s.activities)) if (a.startedEventId === null) await this.enqueue(run, 'a', byId.get(a.scheduledEventId)!);
  }

  async afterCommit(run: Execution, events: readonly HistoryEvent[]): Promise<void> {
    for (const e of events) {
      switch (e.type) {
        case 'DecisionTaskScheduled': await this.enqueue(run, 'd', e); break;
        case 'ActivityTaskScheduled': await this.enqueue(run, 'a', e); break;
        case 'DecisionTaskStarted': this.taskSeqs.delete(this.taskKey(run, 'd', e.attrs.scheduledEventId as number)); break;
        case 'ActivityTaskStarted': this.taskSeqs.delete(this.taskKey(run, 'a', e.attrs.scheduledEventId as number)); break;
        case 'DecisionTaskTimedOut': await this.dequeue(run, 'd', e.attrs.scheduledEventId as number); break;
        case 'ActivityTaskTimedOut':
        case 'ActivityTaskCanceled': await this.dequeue(run, 'a', e.attrs.scheduledEventId as number); break;
        default: break;
      }
    }
    if (run.isClosed) await this.afterClose(run);
  }

  /** A closed run leaves memory, frees its workflowId and drops its unstarted tasks. */
  private async afterClose(run: Execution): Promise<void> {
    const id = PartitionOwner.id(run.key);
    this.live.delete(id);
    for (const k of [...this.taskSeqs.keys()]) {
      if (!k.startsWith(`${id}\u0000`)) continue;
      const seq = this.taskSeqs.get(k)!;
      this.taskSeqs.delete(k);
      await this.queues.remove(seq);
    }
    const rk = runsKey(run.key.domain, run.key.workflowId);
    const entry = await this.nats.runs.get(rk);
    if (entry && entry.operation === 'PUT' && decode<OpenRunRecord>(entry.value).runId === run.key.runId) {
      await this.nats.runs.delete(rk, { previousSeq: entry.revision }).catch(() => undefined);
    }
  }

  invalidate(run: Execution, err: unknown): void {
    this.log.warn({ err, workflowId: run.key.workflowId, runId: run.key.runId }, 'run invalidated; it will be rebuilt from history');
    const id = PartitionOwner.id(run.key);
    if (this.live.get(id) === run) this.live.delete(id);
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
        throw new Fault('WorkflowExecutionAlreadyStartedFault', `Workflow execution already started: workflowId=${workflowId}`);
      }
      throw e;
    }
  }

  async release(domain: string, workflowId: string, revision: number): Promise<void> {
    await this.nats.runs.delete(runsKey(domain, workflowId), { previousSeq: revision }).catch(() => undefined);
  }

  stop(): void {
    for (const run of this.live.values()) run.kill();
    this.live.clear();
  }
}
