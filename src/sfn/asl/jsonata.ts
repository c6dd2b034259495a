import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { AslError } from './errors.js';
import { workerBoot, workerUrl } from './worker-boot.js';

/**
 * JSONata evaluation for JSONata states, with the official `jsonata` package (2.0.6, the version AWS
 * implements).
 *
 * Why a thread, waited for synchronously: jsonata 2.x only evaluates asynchronously (a Promise),
 * while a compiled state machine runs each transition as one synchronous step inside a pure XState
 * action, and the host persists the snapshot after every event. Splitting every step that reads an
 * expression into "ask" and "answer" events would add an "awaiting evaluation" state to every state
 * type (and to the snapshot, and to restore). Instead the step hands the expression to one worker
 * thread and blocks on a shared flag (Atomics.wait) until the answer is on its port
 * (receiveMessageOnPort). The step stays synchronous and deterministic in what it records: the value
 * is computed once, inside the transition, and the snapshot taken after it holds the result, so a
 * restore never evaluates again. The event loop is held for the evaluation, exactly as an
 * evaluation on the event loop would hold it, plus one message each way (tens of microseconds);
 * and a runaway expression can be cut off (the thread is ended and a new one started).
 */

/** One field's evaluation, as the worker receives it. */
export interface JsonataRequest {
  /** The field's value: every `{% … %}` string in it is evaluated. */
  value: unknown;
  /** The field's name (AWS's location: `Output`, `Arguments`, `Assign/total`, …). */
  field: string;
  /** `$states`: input, result, errorOutput, context. */
  states: Record<string, unknown>;
  /** The workflow variables in scope. */
  variables: Record<string, unknown>;
  /** The step's clock (epoch ms): `$now()` and `$millis()`. */
  now: number;
}

export type JsonataReply =
  | { ok: true; value: unknown }
  | { ok: false; expression: string; location: string; kind: 'undefined' | 'error'; message: string };

/**
 * Longest an evaluation may take, counted on its thread between its steps (AWS documents none; this
 * keeps the node responsive): past it the state fails with States.QueryEvaluationError.
 */
export const JSONATA_BUSY_MS = 1000;
/** Longest the node waits for an answer: one step that never ends (a regular expression) ends the thread. */
export const JSONATA_TIMEOUT_MS = 5000;
/** The first evaluation also waits for the thread to load the package. */
const BOOT_TIMEOUT_MS = 60_000;

const WORKER_URL = workerUrl('jsonata-worker', import.meta.url);

/** Is `v` a JSONata expression string (`{%` … `%}` with nothing outside)? */
export function isJsonataExpression(v: unknown): v is string {
  return typeof v === 'string' && v.startsWith('{%') && v.endsWith('%}') && v.length >= 4;
}

/** Does `v` hold any JSONata expression (so it needs the thread at all)? */
export function hasJsonata(v: unknown): boolean {
  if (typeof v === 'string') return isJsonataExpression(v);
  if (Array.isArray(v)) return v.some(hasJsonata);
  if (typeof v === 'object' && v !== null) return Object.values(v).some(hasJsonata);
  return false;
}

class JsonataThread {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private flag: Int32Array | undefined;

  private start(): void {
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const w = new Worker(workerBoot(WORKER_URL), { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
    w.unref();
    port1.unref();
    w.on('error', () => this.stop(w));
    w.on('exit', () => this.stop(w));
    this.worker = w;
    this.port = port1;
    this.flag = flag;
    // The thread says it is ready (flag 2) once it has loaded: only then does an evaluation's own
    // time limit start, so a runaway first expression is cut off as soon as any other.
    Atomics.wait(flag, 0, 0, BOOT_TIMEOUT_MS);
  }

  private stop(w: Worker): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    this.port?.close();
    this.port = undefined;
    void w.terminate();
  }

  evaluate(req: JsonataRequest): JsonataReply {
    if (!this.worker) this.start();
    const flag = this.flag!;
    Atomics.store(flag, 0, 0);
    this.port!.postMessage(req);
    const waited = Atomics.wait(flag, 0, 0, JSONATA_TIMEOUT_MS);
    const got = receiveMessageOnPort(this.port!);
    if (got === undefined) {
      // Timed out (or the thread died): end it; the next evaluation starts a new one.
      this.stop(this.worker!);
      const why = waited === 'timed-out' ? `did not finish within ${JSONATA_TIMEOUT_MS} ms` : 'could not be evaluated';
      return { ok: false, expression: '', location: req.field, kind: 'error', message: `The evaluation ${why}` };
    }
    return got.message as JsonataReply;
  }
}

const thread = new JsonataThread();

/** AWS's cause for a failed evaluation. */
function causeOf(r: Extract<JsonataReply, { ok: false }>): string {
  const head = r.expression === '' ? `The JSONata expression specified for the field '${r.location}'` : `The JSONata expression '${r.expression}' specified for the field '${r.location}'`;
  return r.kind === 'undefined' ? `${head} returned nothing (undefined).` : `${head} threw an error during evaluation. ${r.message}`;
}

/** A failed JSONata evaluation: the state fails with States.QueryEvaluationError; `location` is the field. */
export class QueryEvaluationError extends AslError {
  constructor(readonly location: string, cause: string) {
    super('States.QueryEvaluationError', cause);
  }
}

/**
 * The value of a JSONata state's field: every `{% … %}` string in `value` evaluated with `$states`
 * and the variables in scope. A value without expressions is returned as it is (no thread involved).
 * Throws QueryEvaluationError.
 */
export function evaluateJsonata(value: unknown, field: string, scope: Omit<JsonataRequest, 'value' | 'field'>): unknown {
  if (!hasJsonata(value)) return value;
  const r = thread.evaluate({ value, field, ...scope });
  if (!r.ok) throw new QueryEvaluationError(r.location, causeOf(r));
  return r.value;
}

/** A QueryEvaluationError for a value of the wrong type (AWS: "returned an unexpected result type"). */
export function unexpectedType(field: string, expr: unknown, expected: string, got: unknown): QueryEvaluationError {
  const e = typeof expr === 'string' && isJsonataExpression(expr) ? `The JSONata expression '${expr.slice(2, -2).trim()}'` : `The value`;
  return new QueryEvaluationError(field, `${e} specified for the field '${field}' returned an unexpected result type. Expected '${expected}', but was '${JSON.stringify(got)}'.`);
}
