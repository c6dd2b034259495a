import { createHash } from 'node:crypto';

/**
 * Every NATS subject and KV key of the engine is built here. A user ID becomes one token:
 * `[A-Za-z0-9_-]` stays, every other UTF-8 byte is `~` plus two hex digits; long tokens are hashed.
 * The mapping is one-to-one: an escaped token holds `~` only before two hex digits, so the hashed
 * form `~h<sha256>` (and `~sfn`) can never be the escaped form of another id; a lone surrogate (which
 * validation refuses anyway) is written as its WTF-8 bytes, never as U+FFFD's.
 */
const SAFE = /^[A-Za-z0-9_-]$/;
const MAX_TOKEN = 200;
/** The prefix of hashed tokens: `h` is no hex digit, so escaping never writes `~h`. */
export const HASHED_TOKEN_PREFIX = '~h';

function escapeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  // A lone surrogate: UTF-8 has no form for it (Buffer would write EF BF BD, U+FFFD's bytes).
  const bytes = cp >= 0xd800 && cp <= 0xdfff ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)] : Buffer.from(ch, 'utf8');
  let out = '';
  for (const b of bytes) out += `~${b.toString(16).padStart(2, '0')}`;
  return out;
}

export function escapeToken(id: string): string {
  if (id.length === 0) throw new Error('empty ids cannot be subject tokens');
  let out = '';
  for (const ch of id) out += SAFE.test(ch) ? ch : escapeChar(ch);
  // Hash the escaped form (one-to-one), not the string's UTF-8 (lossy for lone surrogates).
  if (out.length > MAX_TOKEN) out = `${HASHED_TOKEN_PREFIX}${createHash('sha256').update(out).digest('base64url')}`;
  return out;
}

/** KV keys may not hold `~`; `=` is never produced by escapeToken, so the mapping stays reversible. */
export function kvToken(id: string): string {
  return escapeToken(id).replaceAll('~', '=');
}

export interface Subjects {
  readonly prefix: string;
  api(action: string): string;
  apiWildcard(): string;
  /** The actions sent straight to the owner of partition `p`: `<prefix>.api.<Action>.<p>` (the SDK's partition-hints.ts writes them; NatsApiServer serves them). */
  apiDirectWildcard(p: number): string;
  partition(p: number, op: string): string;
  partitionWildcard(p: number): string;
  history(p: number, domain: string, workflowId: string, runId: string): string;
  /** A Step Functions execution's history (`~sfn` is never an escaped SWF domain, so no clash). */
  sfnHistory(p: number, stateMachineName: string, executionName: string): string;
  historyAll(): string;
  historyPartition(p: number): string;
  /** A task list's subjects begin here; each priority has its own (taskLane). */
  taskList(domain: string, kind: 'd' | 'a', taskList: string): string;
  /** The subject of one priority of a task list: `<taskList>.p<priority + 2^31 as 8 hex digits>`. */
  taskLane(domain: string, kind: 'd' | 'a', taskList: string, priority: number): string;
  /** Every priority of a task list. */
  taskLanes(domain: string, kind: 'd' | 'a', taskList: string): string;
  tasksAll(): string;
  /**
   * Core NATS, between engine nodes (under `part`, where only engines publish): a node whose
   * pollers of this task list wait with nothing in sight asks the owners for the tasks they hold.
   */
  taskDemand(domain: string, kind: 'd' | 'a', taskList: string): string;
  visibility(domain: string, runId: string): string;
  visibilityDomain(domain: string): string;
  visibilityAll(): string;
  /** A Step Functions execution's visibility record (`~sfn` in the domain's place, as in sfnHistory). */
  sfnVisibility(stateMachineName: string, executionName: string): string;
  retention(p: number): string;
  retentionAll(): string;
  /** The log of an express execution whose state machine logs (loggingConfiguration level other than OFF). */
  sfnLog(stateMachineName: string, executionName: string): string;
  sfnLogAll(): string;
  streams: { history: string; tasks: string; visibility: string; retention: string; sfnLogs: string };
  buckets: { registry: string; runs: string; leases: string; sfnExecutions: string; cluster: string };
}

export function subjects(prefix = 'af'): Subjects {
  const up = prefix.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
  return {
    prefix,
    api: (action) => `${prefix}.api.${action}`,
    apiWildcard: () => `${prefix}.api.*`,
    apiDirectWildcard: (p) => `${prefix}.api.*.${p}`,
    partition: (p, op) => `${prefix}.part.${p}.${op}`,
    partitionWildcard: (p) => `${prefix}.part.${p}.*`,
    history: (p, d, w, r) => `${prefix}.hist.${p}.${escapeToken(d)}.${escapeToken(w)}.${escapeToken(r)}`,
    sfnHistory: (p, sm, x) => `${prefix}.hist.${p}.~sfn.${escapeToken(sm)}.${escapeToken(x)}`,
    historyAll: () => `${prefix}.hist.>`,
    historyPartition: (p) => `${prefix}.hist.${p}.>`,
    taskList: (d, kind, tl) => `${prefix}.task.${escapeToken(d)}.${kind}.${escapeToken(tl)}`,
    taskLane: (d, kind, tl, priority) => `${prefix}.task.${escapeToken(d)}.${kind}.${escapeToken(tl)}.${laneToken(priority)}`,
    taskLanes: (d, kind, tl) => `${prefix}.task.${escapeToken(d)}.${kind}.${escapeToken(tl)}.>`,
    tasksAll: () => `${prefix}.task.>`,
    taskDemand: (d, kind, tl) => `${prefix}.part.demand.${escapeToken(d)}.${kind}.${escapeToken(tl)}`,
    visibility: (d, r) => `${prefix}.vis.${escapeToken(d)}.${escapeToken(r)}`,
    visibilityDomain: (d) => `${prefix}.vis.${escapeToken(d)}.*`,
    visibilityAll: () => `${prefix}.vis.>`,
    sfnVisibility: (sm, x) => `${prefix}.vis.~sfn.${escapeToken(sm)}.${escapeToken(x)}`,
    retention: (p) => `${prefix}.ret.${p}`,
    retentionAll: () => `${prefix}.ret.>`,
    sfnLog: (sm, x) => `${prefix}.xlog.${escapeToken(sm)}.${escapeToken(x)}`,
    sfnLogAll: () => `${prefix}.xlog.>`,
    streams: { history: `${up}_HISTORY`, tasks: `${up}_TASKS`, visibility: `${up}_VISIBILITY`, retention: `${up}_RETENTION`, sfnLogs: `${up}_SFN_LOGS` },
    buckets: { registry: `${prefix}_registry`, runs: `${prefix}_runs`, leases: `${prefix}_leases`, sfnExecutions: `${prefix}_sfn_executions`, cluster: `${prefix}_cluster` },
  };
}

/** Whether an AF_VISIBILITY subject is a Step Functions execution's (`<prefix>.vis.~sfn.…`). */
export const isSfnVisibility = (subject: string): boolean => subject.split('.')[2] === '~sfn';

/** SWF task priorities: integers from -2^31 to 2^31-1. */
const PRIORITY_OFFSET = 2 ** 31;

/** A priority as a subject token that sorts like the number: `p` and priority + 2^31 in 8 hex digits. */
function laneToken(priority: number): string {
  return `p${(priority + PRIORITY_OFFSET).toString(16).padStart(8, '0')}`;
}

/** The priority of a task-lane subject (its last token); undefined for any other subject. */
export function laneOf(subject: string): number | undefined {
  const t = subject.slice(subject.lastIndexOf('.') + 1);
  return /^p[0-9a-f]{8}$/.test(t) ? Number.parseInt(t.slice(1), 16) - PRIORITY_OFFSET : undefined;
}

/** Durable consumer name for one priority of a task list (stream/consumer names allow only [A-Za-z0-9_-]). */
export function taskListConsumer(domain: string, kind: 'd' | 'a', taskList: string, priority: number): string {
  const h = createHash('sha256').update(`${domain}\u0000${kind}\u0000${taskList}`).digest('hex').slice(0, 24);
  return `tl_${kind}_${h}_${laneToken(priority)}`;
}

/** Stable partition of an execution (the SDK picks the same one: protocol/partition-hint.ts). */
export { partitionOf } from '../protocol/partition-hint.js';

/** A literal subject a user writes (nats:publish Subject, its prefix): dot-separated tokens of `[A-Za-z0-9_-]`, no wildcards. */
const LITERAL_SUBJECT = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** Longest subject a nats:publish Task may name (its prefix not counted). */
export const MAX_PUBLISH_SUBJECT = 256;

/** Whether `s` is a literal subject as nats:publish accepts it (no wildcards, no empty tokens, no `$`). */
export function isLiteralSubject(s: string): boolean {
  return LITERAL_SUBJECT.test(s);
}

/** Where a nats:publish Task's message goes: the configured prefix, then the Task's own literal subject. */
export function publishSubject(prefix: string, subject: string): string {
  if (!isLiteralSubject(subject) || subject.length > MAX_PUBLISH_SUBJECT) throw new RangeError(`not a literal subject: ${subject}`);
  return `${prefix}.${subject}`;
}

/** The engine's own subject spaces under its prefix: a nats:publish prefix may not fall in one. */
export const ENGINE_SUBJECT_SPACES: readonly string[] = ['hist', 'task', 'vis', 'ret', 'part', 'api'];
