import jsonata from 'jsonata';
import { workerData, type MessagePort } from 'node:worker_threads';
import { BOUND_MESSAGES, EVALUATION_LIMITS } from './bounds.js';
import { stepFunctionsBindings } from './jsonata-functions.js';
import { JSONATA_BUSY_MS, type JsonataReply, type JsonataRequest } from './jsonata.js';

/*
 * The thread that evaluates JSONata for jsonata.ts (see there for why a thread). It walks a field's
 * value, evaluates every `{% … %}` string with the official jsonata 2.0.6 package, and answers on
 * its port, then wakes the waiting caller through the shared flag.
 */

const { port, flag } = workerData as { port: MessagePort; flag: Int32Array };

const compiled = new Map<string, jsonata.Expression>();
const CACHE_LIMIT = 2000;

/**
 * A field's evaluation is bounded here, through jsonata's own hook on each evaluation step: by the
 * step bound every JSONPath and intrinsic has (bounds.ts), and by JSONATA_BUSY_MS of time, read every
 * 1024 steps. A runaway expression (a tail recursion, which jsonata runs as a loop; a deep recursion,
 * which grows its heap by about a kilobyte a step) then fails within that second, where it held the
 * engine's thread (which waits for this one) for the whole time limit of jsonata.ts and had the
 * thread started again, once per evaluation: a Map of ten such items, ten times. The hook costs about
 * a fifth of an evaluation's time. jsonata.ts's limit remains for one slow step (a regular expression).
 */
const STEP_HOOK = Symbol.for('jsonata.__evaluate_entry') as unknown as string;
let steps = 0;
let busyUntil = 0;
class OutOfBudget extends Error {}
const step = () => {
  steps += 1;
  if (steps > EVALUATION_LIMITS.steps) throw new OutOfBudget(BOUND_MESSAGES.steps('the expression', EVALUATION_LIMITS.steps));
  if ((steps & 1023) === 0 && performance.now() > busyUntil) throw new OutOfBudget(`The evaluation did not finish within ${JSONATA_BUSY_MS} ms`);
};

function compile(expr: string): jsonata.Expression {
  let e = compiled.get(expr);
  if (e === undefined) {
    e = jsonata(expr);
    e.assign(STEP_HOOK, step);
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(expr, e);
  }
  return e;
}

class EvalFailure extends Error {
  constructor(readonly expression: string, readonly location: string, readonly kind: 'undefined' | 'error', message: string) {
    super(message);
  }
}

/** JSON once more: JSONata sequences become arrays, functions and undefined members go. */
function plain(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v) ?? 'null');
}

async function walk(v: unknown, location: string, bindings: Record<string, unknown>): Promise<unknown> {
  if (typeof v === 'string') {
    const m = /^\{%([\s\S]*)%\}$/.exec(v);
    if (!m) return v;
    const expr = m[1]!.trim();
    let out: unknown;
    try {
      out = await compile(expr).evaluate(null, bindings);
    } catch (e) {
      if (e instanceof OutOfBudget) throw new EvalFailure(expr, location, 'error', e.message);
      const message = e instanceof Error ? e.message : (e as { message?: string }).message ?? String(e);
      const code = (e as { code?: string }).code;
      throw new EvalFailure(expr, location, 'error', code ? `${code}: ${message}` : message);
    }
    if (out === undefined) throw new EvalFailure(expr, location, 'undefined', '');
    return plain(out);
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i += 1) out.push(await walk(v[i], `${location}[${i}]`, bindings));
    return out;
  }
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[k] = await walk(item, `${location}/${k}`, bindings);
    return out;
  }
  return v;
}

async function answer(req: JsonataRequest): Promise<JsonataReply> {
  steps = 0;
  busyUntil = performance.now() + JSONATA_BUSY_MS;
  const bindings = { ...req.variables, states: req.states, ...stepFunctionsBindings(req.now) };
  try {
    return { ok: true, value: await walk(req.value, req.field, bindings) };
  } catch (e) {
    if (e instanceof EvalFailure) return { ok: false, expression: e.expression, location: e.location, kind: e.kind, message: e.message };
    return { ok: false, expression: '', location: req.field, kind: 'error', message: e instanceof Error ? e.message : String(e) };
  }
}

port.on('message', (req: JsonataRequest) => {
  void answer(req).then((reply) => {
    port.postMessage(reply);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
});

// Loaded: the caller waiting in JsonataThread.start goes on.
Atomics.store(flag, 0, 2);
Atomics.notify(flag, 0);
