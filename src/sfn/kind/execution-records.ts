import type { KV } from '@nats-io/kv';
import { JetStreamApiError } from '@nats-io/jetstream';
import { encode } from '../../protocol/codec.js';
import { UNREPORTED, type Quarantine } from '../../history/quarantine.js';
import { kvToken } from '../../nats/subjects.js';
import { JsCodes } from '../../history/history-store.js';

export type SfnExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** One execution as KV `<prefix>_sfn_executions` keeps it (Describe/List, uniqueness, recovery). */
export interface SfnExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  stateMachineName: string;
  name: string;
  status: SfnExecutionStatus;
  /** epoch ms */
  startDate: number;
  stopDate?: number;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  partition: number;
  /** The definition the execution started with (a later UpdateStateMachine does not change it). */
  definition: string;
  roleArn: string;
  /** Set when started through a version ARN, or through an alias (the version it picked). */
  stateMachineVersionArn?: string;
  /** Set when started through an alias. */
  stateMachineAliasArn?: string;
  /** A Distributed Map's child execution: the map run that started it. */
  mapRunArn?: string;
  /** The revision of the state machine (or version) the definition came from, and when it was made (epoch ms). */
  revisionId?: string;
  definitionDate?: number;
  /** The mock configuration's test case it runs (started as `<stateMachineArn>#<TestCaseName>`). */
  mockTestCase?: string;
  /** Redrives so far (RedriveExecution), and when the last one began (epoch ms). */
  redriveCount?: number;
  redriveDate?: number;
  /** The clientTokens of the last redrives: token → [first used, the redriveDate it answered] (epoch ms). */
  redriveTokens?: Record<string, [number, number]>;
  /** History events when the execution closed (the redrive's history quota check). */
  historyEvents?: number;
}

export const executionKey = (stateMachineName: string, name: string): string => `x.${kvToken(stateMachineName)}.${kvToken(name)}`;

/** The running-executions index: one key per RUNNING execution, listed by partition at recovery. */
export const runningKey = (rec: Pick<SfnExecutionRecord, 'partition' | 'stateMachineName' | 'name'>): string =>
  `r.${rec.partition}.${kvToken(rec.stateMachineName)}.${kvToken(rec.name)}`;

/** What an index key holds: enough to tell a key left by a start that crashed before its record. */
interface RunningEntry { executionArn: string; startDate: number }

/** An index key without its record is a start still on its way for this long; older, it is left over from a crash. */
const ORPHAN_AFTER_MS = 5 * 60_000;

/**
 * What follows a record's changes (the execution's visibility and retention): told after the KV
 * write. Each effect handles its own failures; `closed` answers whether it recorded everything.
 */
export interface ExecutionRecordEffects {
  /** A new record: the execution is RUNNING. */
  started(rec: SfnExecutionRecord): Promise<void>;
  /** The closing update; false leaves the running-index key, so recovery tells it again. */
  closed(rec: SfnExecutionRecord): Promise<boolean>;
  /** A record taken back (its start stored no history). */
  removed(rec: SfnExecutionRecord): Promise<void>;
  /** A RUNNING record found at recovery (its start may have crashed before `started`). */
  recovered(rec: SfnExecutionRecord): Promise<void>;
}

/**
 * The records bucket: create is the name-uniqueness check, updates are compare-and-set. Beside each
 * record `x.<sm>.<name>`, a RUNNING execution has an index key `r.<partition>.<sm>.<name>`, written
 * before the record and removed after its closing update, so the index holds every running
 * execution (and, after a crash at the wrong moment, a few closed ones that `running` cleans up).
 */
export class ExecutionRecords {
  constructor(private readonly kv: KV, private readonly now: () => number = Date.now, private readonly quarantine: Quarantine = UNREPORTED,
    private readonly effects?: ExecutionRecordEffects) {}

  /** Where a key's record is stored, for the quarantine. */
  private at(e: { bucket: string; key: string; revision: number }) {
    return { stream: `KV_${e.bucket}`, subject: `$KV.${e.bucket}.${e.key}`, seq: e.revision };
  }

  /** Indexes and creates the record; false when the name is taken (the caller reads the holder). */
  async create(rec: SfnExecutionRecord): Promise<boolean> {
    await this.kv.put(runningKey(rec), encode({ executionArn: rec.executionArn, startDate: rec.startDate } satisfies RunningEntry));
    try {
      await this.kv.create(executionKey(rec.stateMachineName, rec.name), encode(rec));
      await this.effects?.started(rec);
      return true;
    } catch (e) {
      if ((e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence) || (e as { code?: number }).code === JsCodes.StreamWrongLastSequence) {
        // Same name, same key: it stays while the holder runs.
        if ((await this.get(rec.stateMachineName, rec.name))?.status !== 'RUNNING') await this.kv.purge(runningKey(rec));
        return false;
      }
      throw e;
    }
  }

  async get(stateMachineName: string, name: string): Promise<SfnExecutionRecord | undefined> {
    const e = await this.kv.get(executionKey(stateMachineName, name));
    return e && e.operation === 'PUT' && e.value.length > 0 ? this.quarantine.decode<SfnExecutionRecord>('sfn_executions', e.value, this.at(e)) : undefined;
  }

  /**
   * A closed execution runs again (a redrive): back in the running index, then its RUNNING record,
   * then its effects (visibility). Written by the partition owner only, like `close`.
   */
  async reopen(rec: SfnExecutionRecord): Promise<void> {
    await this.kv.put(runningKey(rec), encode({ executionArn: rec.executionArn, startDate: rec.startDate } satisfies RunningEntry));
    await this.kv.put(executionKey(rec.stateMachineName, rec.name), encode(rec));
    await this.effects?.started(rec);
  }

  /** Takes back a record whose execution never started (no history): the name is free again. */
  async remove(rec: SfnExecutionRecord): Promise<void> {
    await this.kv.purge(executionKey(rec.stateMachineName, rec.name));
    await this.kv.purge(runningKey(rec));
    await this.effects?.removed(rec);
  }

  /**
   * Writes the closing state (only one writer, the partition owner, changes a record after create),
   * then leaves the index once the close is recorded everywhere (a crash in between leaves the index
   * key: recovery finds the closed record and tells its effects again).
   */
  async close(rec: SfnExecutionRecord): Promise<void> {
    await this.kv.put(executionKey(rec.stateMachineName, rec.name), encode(rec));
    // The close's effects and leaving the index follow once the caller is answered (a SendTaskSuccess
    // that closes the execution does not wait for them); a crash before they are done leaves the
    // index key, so recovery tells the effects again.
    void this.finishClose(rec).catch(() => undefined);
  }

  private async finishClose(rec: SfnExecutionRecord): Promise<void> {
    if (await this.effects?.closed(rec) ?? true) await this.kv.purge(runningKey(rec));
  }

  /**
   * The RUNNING executions of one partition, from the index; index keys of closed executions are
   * removed (once their close's effects are recorded).
   */
  async running(partition: number): Promise<SfnExecutionRecord[]> {
    const index = await this.keysOf(`r.${partition}.>`);
    const recs = await this.read(index.map((k) => `x.${k.slice(k.indexOf('.', 2) + 1)}`));
    const byKey = new Map(recs.map((r) => [runningKey(r), r]));
    const out: SfnExecutionRecord[] = [];
    for (const k of index) {
      const rec = byKey.get(k);
      if (rec?.status === 'RUNNING') {
        await this.effects?.recovered(rec);
        out.push(rec);
      } else if (rec) {
        // Closed, but its close was cut short before its effects were recorded.
        if (await this.effects?.closed(rec) ?? true) await this.kv.purge(k);
      } else if (await this.orphan(k)) await this.kv.purge(k);
    }
    return out;
  }

  /**
   * The running-executions index of one partition, without the records: the execution ARN of each
   * key (recovery reads each execution's last history message, not its record).
   */
  async runningIndex(partition: number): Promise<{ key: string; executionArn?: string }[]> {
    const keys = await this.keysOf(`r.${partition}.>`);
    const out: { key: string; executionArn?: string }[] = [];
    for (let i = 0; i < keys.length; i += 512) {
      const got = await Promise.all(keys.slice(i, i + 512).map((k) => this.kv.get(k)));
      for (const e of got) {
        if (!e || e.operation !== 'PUT') continue;
        // An entry that does not say its execution (damaged, or an older shape) is settled from its record.
        const entry = this.quarantine.tryDecode<Partial<RunningEntry>>('sfn_executions', e.value, this.at(e));
        out.push(typeof entry?.executionArn === 'string' ? { key: e.key, executionArn: entry.executionArn } : { key: e.key });
      }
    }
    return out;
  }

  /** The record an index key stands for (`r.<p>.<sm>.<name>` → `x.<sm>.<name>`). */
  async recordOfIndexKey(key: string): Promise<SfnExecutionRecord | undefined> {
    return (await this.read([`x.${key.slice(key.indexOf('.', 2) + 1)}`]))[0];
  }

  /** Cleans one index key the way `running` does: kept for a RUNNING record, dropped for a closed one or an old orphan. */
  async settleIndexKey(key: string, rec: SfnExecutionRecord | undefined): Promise<void> {
    if (rec?.status === 'RUNNING') return;
    if (rec || await this.orphan(key)) await this.kv.purge(key);
  }

  /** True for an index key whose record never came (a start that crashed in between), once it is old. */
  private async orphan(key: string): Promise<boolean> {
    const e = await this.kv.get(key);
    if (!e || e.operation !== 'PUT' || e.value.length === 0) return false;
    // A damaged entry is never an orphan: it stays for the operator (quarantined).
    const entry = this.quarantine.tryDecode<RunningEntry>('sfn_executions', e.value, this.at(e));
    return entry !== undefined && this.now() - entry.startDate > ORPHAN_AFTER_MS;
  }

  private async keysOf(filter: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys(filter)) keys.push(k);
    return keys;
  }

  private async read(keys: string[]): Promise<SfnExecutionRecord[]> {
    const out: SfnExecutionRecord[] = [];
    for (let i = 0; i < keys.length; i += 512) {
      const got = await Promise.all(keys.slice(i, i + 512).map((k) => this.kv.get(k)));
      for (const e of got) {
        if (!e || e.operation !== 'PUT' || e.value.length === 0) continue;
        const rec = this.quarantine.tryDecode<SfnExecutionRecord>('sfn_executions', e.value, this.at(e));
        if (rec) out.push(rec);
      }
    }
    return out;
  }
}
