import { isSfnVisibility } from '../nats/subjects.js';

/**
 * The shape of every kind of record the engine keeps in JetStream, checked once where it is decoded
 * (see quarantine.ts): a check answers what is wrong with a decoded value, or undefined when it fits.
 * The checks hold what the engine's own code relies on when it reads a record back, nothing more.
 */
export type RecordKind = 'history' | 'task' | 'runs' | 'registry' | 'visibility' | 'sfn_executions' | 'retention';

type Check = (v: unknown, key: string) => string | undefined;
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown, min = 0): v is number => Number.isSafeInteger(v) && (v as number) >= min;
const absent = (v: unknown) => v === undefined || v === null;

/** Checks members of an object: each predicate answers whether its member fits. */
function members(v: unknown, what: string, want: Record<string, (x: unknown) => boolean>): string | undefined {
  if (!isObj(v)) return `${what} is not a map`;
  for (const [k, ok] of Object.entries(want)) if (!ok(v[k])) return `${what}.${k} is missing or of the wrong type`;
  return undefined;
}

const oneOf = (...values: string[]) => (x: unknown) => isStr(x) && values.includes(x);
const optional = (ok: (x: unknown) => boolean) => (x: unknown) => absent(x) || ok(x);
const named = (x: unknown) => isObj(x) && isStr(x.name) && isStr(x.version);
const execution = (x: unknown) => isObj(x) && isStr(x.workflowId) && isStr(x.runId);

/** One history event (SWF and Step Functions share the stored shape). */
function event(e: unknown, i: number): string | undefined {
  return members(e, `events[${i}]`, { id: (x) => isInt(x, 1), type: (x) => isStr(x) && x.length > 0, at: isNum, attrs: isObj });
}

const isBytes = (x: unknown) => x instanceof Uint8Array;

/**
 * A Step Functions transition's `extra` (src/sfn/kind/transition-chunks.ts): the root actor's
 * snapshot and the host's bookkeeping; or, for a transition too large for one message, an earlier
 * part (`partial`) or the last message naming its parts.
 */
const sfnExtra = (x: unknown) => {
  if (isObj(x) && x.partial === true) return members(x, 'extra', { restore: (n) => isInt(n), upTo: (n) => isInt(n), part: optional(isBytes) });
  if (isObj(x) && 'parts' in x) {
    return members(x, 'extra', { parts: (p) => Array.isArray(p) && p.every((n) => isInt(n, 1)), part: isBytes });
  }
  return members(x, 'extra', { snapshot: isObj, book: (b) => isObj(b) && isInt(b.lastEventId) && isObj(b.last) && isObj(b.tasks) });
};

/** Whether a history subject is a Step Functions execution's (`<prefix>.hist.<p>.~sfn.…`). */
export const isSfnHistory = (subject: string): boolean => subject.split('.')[3] === '~sfn';

/** One transition: its events (ids consecutive within it) and, for Step Functions, its `extra`. */
const transition: Check = (v, subject) => {
  if (!isObj(v)) return 'not a map';
  // Only a part of a split Step Functions transition may carry no events.
  if (!Array.isArray(v.events) || (v.events.length === 0 && !isSfnHistory(subject))) return 'events is not a non-empty list';
  for (let i = 0; i < v.events.length; i++) {
    const bad = event(v.events[i], i);
    if (bad) return bad;
    if (i > 0 && (v.events[i] as Obj).id !== ((v.events[i - 1] as Obj).id as number) + 1) return `events[${i}].id does not follow events[${i - 1}].id`;
  }
  if (isSfnHistory(subject)) return sfnExtra(v.extra);
  return absent(v.extra) || isObj(v.extra) ? undefined : 'extra is not a map';
};

const task: Check = (v) => members(v, 'task', {
  domain: isStr, workflowId: isStr, runId: isStr, partition: (x) => isInt(x), kind: oneOf('d', 'a'), taskList: isStr, scheduledEventId: (x) => isInt(x, 1),
});

const openRun: Check = (v) => members(v, 'record', {
  domain: isStr, workflowId: isStr, runId: isStr, partition: (x) => isInt(x), startedAt: isNum,
  parent: optional((p) => isObj(p) && isStr(p.runId) && isInt(p.initiatedEventId, 1)),
});

const status = oneOf('REGISTERED', 'DEPRECATED');
/** Registry records by key prefix: domains, SWF types, Step Functions activities and state machines. */
const registry: Check = (v, key) => {
  switch (key.slice(0, key.indexOf('.'))) {
    case 'd': return members(v, 'domain', { name: isStr, status, retentionDays: isStr, arn: isStr, tags: Array.isArray });
    case 'wt': case 'at': return members(v, 'type', { kind: oneOf('workflow', 'activity'), domain: isStr, name: isStr, version: isStr, status, creationDate: isNum, config: isObj });
    case 'sa': return members(v, 'activity', { name: isStr, arn: isStr, creationDate: isNum });
    case 'sm': return members(v, 'state machine', { name: isStr, arn: isStr, definition: isStr, roleArn: isStr, revisionId: isStr, status: oneOf('ACTIVE', 'DELETING'), creationDate: isNum });
    default: return isObj(v) ? undefined : 'not a map';
  }
};

const SFN_STATUS = oneOf('RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED');

/** An SWF run's record, or on `<prefix>.vis.~sfn.…` a Step Functions execution's (src/sfn/visibility/). */
const visibility: Check = (v, subject) => isSfnVisibility(subject)
  ? members(v, 'record', {
    executionArn: isStr, stateMachineArn: isStr, stateMachineName: isStr, name: isStr, status: SFN_STATUS, startDate: isNum, stopDate: optional(isNum),
  })
  : members(v, 'record', {
    domain: isStr, execution, workflowType: named, startTimestamp: isNum, closeTimestamp: optional(isNum),
    executionStatus: oneOf('OPEN', 'CLOSED'), cancelRequested: (x) => typeof x === 'boolean', version: (x) => isInt(x),
    tagList: optional((x) => Array.isArray(x) && x.every(isStr)), parent: optional(execution),
  });

/** `x.<sm>.<name>`: an execution record; `r.<p>.<sm>.<name>`: its running-index entry. */
const sfnExecution: Check = (v, key) => key.startsWith('r.')
  ? members(v, 'index entry', { executionArn: isStr, startDate: isNum })
  : members(v, 'execution', {
    executionArn: isStr, stateMachineArn: isStr, stateMachineName: isStr, name: isStr, status: SFN_STATUS,
    startDate: isNum, input: isStr, partition: (x) => isInt(x), definition: isStr, roleArn: isStr,
  });

const retention: Check = (v) => members(v, 'record', {
  history: isStr, expireAt: isNum, visibility: optional(isStr), record: optional((x) => isObj(x) && isStr(x.bucket) && isStr(x.key)),
});

/** The check of each kind; `key` is the history subject, or the KV key for bucket records. */
export const RECORD_SHAPES: Readonly<Record<RecordKind, Check>> = {
  history: transition, task, runs: openRun, registry, visibility, sfn_executions: sfnExecution, retention,
};
