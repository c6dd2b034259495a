import { appendFileSync } from 'node:fs';
import type { Operation } from '../../src/service/context.js';
import { OPERATIONS } from '../../src/swf/operations.js';
import { SFN_OPERATIONS } from '../../src/sfn/operations.js';
import type { WireApi } from './wire-shapes.js';

/**
 * Captures every successful answer the test engines give, as the JSON both transports carry (the
 * HTTP gateway sends exactly `JSON.stringify(result ?? {})`), so test/integration/wire-shapes.test.ts
 * can check each against the AWS model. On in a test file with `recordWireAnswers()`; for whole
 * suites with `AF_WIRE_RECORD=<file.jsonl>` (one JSON line per answer; scripts/wire-corpus.ts turns
 * such a file into the checked-in corpus).
 */
export interface WireAnswer {
  api: WireApi;
  action: string;
  body: string;
}

let active: WireAnswer[] | undefined;
let installed = false;

/** Starts recording in this process (engines started afterwards record into the returned list). */
export function recordWireAnswers(): WireAnswer[] {
  active = [];
  installOperationRecorder();
  return active;
}

function record(api: WireApi, action: string, result: unknown): void {
  const file = process.env.AF_WIRE_RECORD;
  if (!active && !file) return;
  const answer: WireAnswer = { api, action, body: JSON.stringify(result ?? {}) };
  active?.push(answer);
  if (file) appendFileSync(file, `${JSON.stringify(answer)}\n`);
}

function wrap(api: WireApi, table: Record<string, Operation>): void {
  for (const [action, op] of Object.entries(table)) {
    table[action] = async (ctx, input, signal) => {
      const result = await op(ctx, input, signal);
      record(api, action, result);
      return result;
    };
  }
}

/**
 * Wraps the operation tables once per process (before a node is started: the NATS transport copies
 * the tables at start-up). Does nothing unless recording is asked for.
 */
export function installOperationRecorder(): void {
  if (installed || (!active && !process.env.AF_WIRE_RECORD)) return;
  installed = true;
  wrap('swf', OPERATIONS as Record<string, Operation>);
  wrap('sfn', SFN_OPERATIONS as Record<string, Operation>);
}
