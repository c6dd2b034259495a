import type { KV } from '@nats-io/kv';
import { JetStreamApiError } from '@nats-io/jetstream';
import { decode, encode } from '../../nats/codec.js';
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
}

export const executionKey = (stateMachineName: string, name: string): string => `x.${kvToken(stateMachineName)}.${kvToken(name)}`;

/** The records bucket: create is the name-uniqueness check, updates are compare-and-set. */
export class ExecutionRecords {
  constructor(private readonly kv: KV) {}

  /** Creates the record; false when the name is taken (the caller reads the holder). */
  async create(rec: SfnExecutionRecord): Promise<boolean> {
    try {
      await this.kv.create(executionKey(rec.stateMachineName, rec.name), encode(rec));
      return true;
    } catch (e) {
      if ((e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence) || (e as { code?: number }).code === JsCodes.StreamWrongLastSequence) return false;
      throw e;
    }
  }

  async get(stateMachineName: string, name: string): Promise<SfnExecutionRecord | undefined> {
    const e = await this.kv.get(executionKey(stateMachineName, name));
    return e && e.operation === 'PUT' && e.value.length > 0 ? decode<SfnExecutionRecord>(e.value) : undefined;
  }

  /** Writes the closing state (only one writer, the partition owner, changes a record after create). */
  async close(rec: SfnExecutionRecord): Promise<void> {
    await this.kv.put(executionKey(rec.stateMachineName, rec.name), encode(rec));
  }

  /** Every record of one state machine, or of all of them. */
  async list(stateMachineName?: string): Promise<SfnExecutionRecord[]> {
    const keys: string[] = [];
    for await (const k of await this.kv.keys(stateMachineName === undefined ? 'x.>' : `x.${kvToken(stateMachineName)}.*`)) keys.push(k);
    const out: SfnExecutionRecord[] = [];
    for (let i = 0; i < keys.length; i += 64) {
      const got = await Promise.all(keys.slice(i, i + 64).map((k) => this.kv.get(k)));
      for (const e of got) if (e && e.operation === 'PUT' && e.value.length > 0) out.push(decode<SfnExecutionRecord>(e.value));
    }
    return out;
  }
}
