import { Worker } from 'node:worker_threads';
import { workerBoot, workerUrl } from '../asl/worker-boot.js';
import { InvalidDefinitionError, parseDefinition, readValidatedDefinition, type DefinitionProblem } from '../asl/validate-definition.js';
import type { AslDefinition } from '../asl/types.js';

export interface ParseRequest { id: number; text: string }
export type ParseReply = { id: number; valid: true } | { id: number; problems: readonly DefinitionProblem[] } | { id: number; error: string };

/**
 * Below this length a definition is parsed on the event loop (well under 10 ms); longer ones go to
 * a worker thread. Validating a 1 MiB definition (a Parallel of 10,000 branches is 650 KB) takes
 * 150–300 ms, and on the event loop that held every other request of the node as long.
 */
export const OFF_THREAD_LENGTH = 64 * 1024;

const WORKER_URL = workerUrl('definition-worker', import.meta.url);

/**
 * Parses and validates definitions as `parseDefinition` does, large ones on one shared worker
 * thread (started on first use, not keeping the process alive). When the worker cannot run, the
 * definition is parsed here: slower for the node, never wrong.
 */
class DefinitionParser {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (d: AslDefinition | undefined) => void; reject: (e: Error) => void; text: string; keep: boolean }>();

  /** The parsed definition (`keep`), or only its validation. */
  parse(text: string, keep: boolean): Promise<AslDefinition | undefined> {
    if (typeof text !== 'string' || text.length < OFF_THREAD_LENGTH) return Promise.resolve().then(() => parseDefinition(text));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject, text, keep });
      const w = this.thread();
      w.ref(); // held while it has work: an answer is awaited
      w.postMessage({ id, text } satisfies ParseRequest);
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(workerBoot(WORKER_URL), { eval: true });
    w.unref();
    w.on('message', (m: ParseReply) => this.settle(m));
    // A worker that fails (or exits) leaves its requests to be parsed here; the next large one starts a new worker.
    const lost = (err?: unknown) => {
      if (err !== undefined) process.emitWarning(`definition parser thread failed, parsing on the event loop: ${err instanceof Error ? err.message : String(err)}`);
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        try { p.resolve(parseDefinition(p.text)); } catch (e) { p.reject(e as Error); }
      }
    };
    w.on('error', lost);
    w.on('exit', () => lost());
    this.worker = w;
    return w;
  }

  private settle(m: ParseReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker?.unref();
    // The worker only validates: JSON.parse of the text here costs less than receiving its parsed copy.
    if ('valid' in m) p.resolve(p.keep ? readValidatedDefinition(p.text) : undefined);
    else if ('problems' in m) p.reject(new InvalidDefinitionError(m.problems));
    else p.reject(new Error(m.error));
  }
}

const shared = new DefinitionParser();

/** parseDefinition without holding the event loop for a large definition. */
export async function parseDefinitionOffThread(text: string): Promise<AslDefinition> {
  return (await shared.parse(text, true))!;
}

/** Validation only (InvalidDefinitionError when the definition is not valid), off the event loop when large. */
export async function validateDefinitionOffThread(text: string): Promise<void> {
  await shared.parse(text, false);
}
