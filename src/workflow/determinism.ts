import { AsyncLocalStorage } from 'node:async_hooks';
import { DeterminismViolation } from './errors.js';

/** What workflow code gets in place of the calls that would answer differently on replay. */
export interface DeterministicSource {
  /** The current decision task's time (ms). */
  nowMs(): number;
  /** The run's seeded random numbers. */
  random(): number;
}

/**
 * Workflow code runs inside this storage, so the replaced globals can tell its calls from those of
 * everything else in the process (activities, the NATS client), which keep the real ones.
 *
 * Why not a separate V8 context, as Temporal's sandbox does: a workflow here is a function from the
 * user's own module, written against the process's globals; running it elsewhere means bundling the
 * user's code. AsyncLocalStorage follows the function through every `await`, which is what matters.
 */
const current = new AsyncLocalStorage<DeterministicSource>();

export function runDeterministic<T>(source: DeterministicSource, fn: () => T): T {
  installGuards();
  return current.run(source, fn);
}

/** Runs `fn` outside the workflow's scope (a side effect's own code may use timers, I/O, the clock). */
export function outsideWorkflow<T>(fn: () => T): T {
  return current.exit(fn);
}

/** True while workflow code (or a continuation of it) is running. */
export function inWorkflow(): boolean {
  return current.getStore() !== undefined;
}

let installed = false;

/**
 * Replaces, once per process: `Math.random` and `Date.now` answer from the run inside workflow code
 * (the same on every replay) and as before elsewhere; `setTimeout`, `setInterval` and `setImmediate`
 * throw inside workflow code (a timer there would not be in the history: use wf.sleep).
 */
function installGuards(): void {
  if (installed) return;
  installed = true;
  const realRandom = Math.random;
  const realNow = Date.now;
  Math.random = () => current.getStore()?.random() ?? realRandom();
  Date.now = () => current.getStore()?.nowMs() ?? realNow();
  for (const name of ['setTimeout', 'setInterval', 'setImmediate'] as const) {
    const real = globalThis[name] as (...args: unknown[]) => unknown;
    const guarded = function (this: unknown, ...args: unknown[]) {
      if (current.getStore()) throw new DeterminismViolation(`${name} in workflow code: its timer would not be in the history; use wf.sleep`);
      return real.apply(this, args);
    };
    // Keep util.promisify(setTimeout) and friends working outside workflows.
    Object.assign(guarded, real);
    (globalThis as Record<string, unknown>)[name] = guarded;
  }
}

/** A small seeded generator (mulberry32) so a run's random numbers are the same on every replay. */
export function seededRandom(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
