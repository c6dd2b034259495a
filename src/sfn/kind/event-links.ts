import type { SfnLink, SfnLinkOp } from '../compile/contract.js';

/**
 * The part of the host's book that links events (previousEventId), as AWS does: every actor's events
 * form a chain (`last`: the id its next event links to); a Parallel branch starts at its
 * ParallelStateStarted, a Map iteration at its MapIterationStarted (which links to MapStateStarted, or
 * to the last event of the iteration before it in the same slot); the events closing the state link
 * to the latest event of what finished. `queues` holds, per Map visit, the positions of slots waiting
 * for their next iteration.
 */
export interface LinkBook {
  last: Record<string, number>;
  queues?: Record<string, number[]>;
}

/** The previousEventId of an event recorded by `actorId`. */
export function previousOf(book: LinkBook, actorId: string, l: SfnLink | undefined): number {
  if (l === undefined) return book.last[actorId] ?? 0;
  if (l.none) return 0;
  if (l.pull !== undefined) {
    const q = book.queues?.[l.pull];
    if (q && q.length > 0) {
      const v = q.shift()!;
      if (q.length === 0) delete book.queues![l.pull];
      return v;
    }
  }
  return book.last[l.from ?? actorId] ?? 0;
}

/** Moves the chains after event `id` of `actorId` (linked with `l`) is numbered. */
export function advance(book: LinkBook, actorId: string, id: number, l: SfnLink | undefined): void {
  if (!l?.keep) book.last[actorId] = id;
  if (l === undefined) return;
  for (const c of l.seed ?? []) book.last[c] = id;
  if (l.join !== undefined) book.last[l.join] = Math.max(book.last[l.join] ?? 0, id);
  if (l.push !== undefined) ((book.queues ??= {})[l.push] ??= []).push(book.last[l.from ?? actorId] ?? 0);
  if (l.drop) drop(book, l.drop);
}

export function applyLinkOp(book: LinkBook, op: SfnLinkOp): void {
  if (op.op === 'drop') {
    drop(book, op.keys);
    return;
  }
  let at = book.last[op.into] ?? 0;
  for (const c of op.from) at = Math.max(at, book.last[c] ?? 0);
  book.last[op.into] = at;
}

function drop(book: LinkBook, keys: readonly string[]): void {
  for (const k of keys) {
    delete book.last[k];
    if (book.queues) delete book.queues[k];
  }
}
