import type { KV } from '@nats-io/kv';
import { decode, encode } from '../../protocol/codec.js';
import { kvToken } from '../../nats/subjects.js';
import { parseArn } from '../arns.js';
import { readMapRunArn } from './map-run-arns.js';

export type MapRunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

/** What a child execution (one item, or one batch of items) of a map run came to; one letter each in MapRunRecord.children. */
export const CHILD = { pending: 'P', running: 'R', succeeded: 'S', failed: 'F', timedOut: 'T', aborted: 'A' } as const;
export type ChildState = typeof CHILD[keyof typeof CHILD];

/** One map run, as KV `<prefix>_sfn_executions` keeps it beside the execution records (DescribeMapRun, ListMapRuns, recovery). */
export interface MapRunRecord {
  mapRunArn: string;
  /** The execution whose Distributed Map state started it. */
  executionArn: string;
  /** The labelled state machine its children run (`…:stateMachine:<name>/<label>`). */
  stateMachineArn: string;
  status: MapRunStatus;
  /** epoch ms */
  startDate: number;
  stopDate?: number;
  /** 0: as many as the node allows (AWS's default, 10,000, bounded by the node's mapRunChildren). */
  maxConcurrency: number;
  toleratedFailurePercentage: number;
  toleratedFailureCount: number;
  /** Which of the two the definition (or UpdateMapRun) set: only those apply; neither set, no failure is tolerated. */
  byCount?: boolean;
  byPercentage?: boolean;
  /** One letter (CHILD) per child execution, in item order. */
  children: string;
  /** Items in each child's batch (ItemBatcher); absent: one item each. */
  batches?: number[];
  error?: string;
  cause?: string;
}

const recordKey = (id: string) => `m.${id}`;
const indexPrefix = (executionArn: string) => {
  const { name, stateMachineName } = parseArn(executionArn, 'execution', 'executionArn');
  return `mx.${kvToken(stateMachineName!)}.${kvToken(name)}`;
};

/**
 * The map-run records: `m.<mapRunId>` holds the record, `mx.<stateMachine>.<execution>.<mapRunId>`
 * (written first) lists an execution's map runs. Updates are compare-and-set: the node running
 * the map run and UpdateMapRun both write it.
 */
export class MapRunRecords {
  constructor(private readonly kv: KV) {}

  /** Creates the record unless the map run has one (a restart); answers the stored one. */
  async create(rec: MapRunRecord): Promise<MapRunRecord> {
    const id = readMapRunArn(rec.mapRunArn)!.id;
    await this.kv.put(`${indexPrefix(rec.executionArn)}.${id}`, encode({ mapRunArn: rec.mapRunArn, startDate: rec.startDate }));
    try {
      await this.kv.create(recordKey(id), encode(rec));
      return rec;
    } catch (e) {
      const held = await this.get(rec.mapRunArn);
      if (held) return held;
      throw e;
    }
  }

  async get(mapRunArn: string): Promise<MapRunRecord | undefined> {
    return (await this.entry(mapRunArn))?.rec;
  }

  private async entry(mapRunArn: string): Promise<{ rec: MapRunRecord; revision: number } | undefined> {
    const parts = readMapRunArn(mapRunArn);
    if (!parts) return undefined;
    const e = await this.kv.get(recordKey(parts.id));
    if (!e || e.operation !== 'PUT' || e.value.length === 0) return undefined;
    const rec = decode<MapRunRecord>(e.value);
    return rec.mapRunArn === mapRunArn ? { rec, revision: e.revision } : undefined;
  }

  /** Applies `change` with compare-and-set (retried on a concurrent write); undefined when the record is gone or `change` answers undefined. */
  async update(mapRunArn: string, change: (rec: MapRunRecord) => MapRunRecord | undefined): Promise<MapRunRecord | undefined> {
    for (let attempt = 0; ; attempt++) {
      const got = await this.entry(mapRunArn);
      if (!got) return undefined;
      const next = change(got.rec);
      if (!next) return undefined;
      try {
        await this.kv.update(recordKey(readMapRunArn(mapRunArn)!.id), encode(next), got.revision);
        return next;
      } catch (e) {
        if (attempt >= 20) throw e;
      }
    }
  }

  /** The map runs of one execution, oldest first. */
  async ofExecution(executionArn: string): Promise<MapRunRecord[]> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys(`${indexPrefix(executionArn)}.>`)) keys.push(k);
    const entries = await Promise.all(keys.map((k) => this.kv.get(k)));
    const arns = entries.flatMap((e) => (e && e.operation === 'PUT' && e.value.length > 0 ? [decode<{ mapRunArn: string }>(e.value).mapRunArn] : []));
    const recs = await Promise.all(arns.map((a) => this.get(a)));
    return recs.filter((r): r is MapRunRecord => r !== undefined && r.executionArn === executionArn)
      .sort((a, b) => a.startDate - b.startDate || (a.mapRunArn < b.mapRunArn ? -1 : 1));
  }
}

/** Item and execution counts of a map run, as DescribeMapRun's MapRunItemCounts and MapRunExecutionCounts hold them. */
export function mapRunCounts(rec: MapRunRecord): { itemCounts: Record<string, number>; executionCounts: Record<string, number> } {
  const zero = () => ({ pending: 0, running: 0, succeeded: 0, failed: 0, timedOut: 0, aborted: 0, total: 0, resultsWritten: 0, failuresNotRedrivable: 0, pendingRedrive: 0 });
  const items = zero();
  const execs = zero();
  const field: Record<ChildState, keyof ReturnType<typeof zero>> = { P: 'pending', R: 'running', S: 'succeeded', F: 'failed', T: 'timedOut', A: 'aborted' };
  for (let i = 0; i < rec.children.length; i++) {
    const f = field[rec.children[i] as ChildState];
    const n = rec.batches?.[i] ?? 1;
    items[f] += n;
    items.total += n;
    // A child that never started is no execution yet.
    if (f !== 'pending') { execs[f] += 1; execs.total += 1; }
  }
  return { itemCounts: items, executionCounts: execs };
}
