import type { SfnExecutionOutput } from './contract.js';
import type { Fault, GraphContext, GraphInput, Kids } from './graph-context.js';
import { MAX_PAYLOAD_BYTES, utf8Bytes } from './payload-limit.js';
import type { Step } from './step.js';

/**
 * Children (Parallel branches, Map iterations) started in one turn before the graph yields to the
 * event loop (a 0 ms timer): a Map of 10,000 Pass iterations runs in chunks, and other requests of
 * the node are answered between them.
 */
export const KIDS_PER_TURN = 20;

/** A new visit of a Parallel or Map state: `total` children, at most `max` at once. */
export function newKids(s: Step, name: string, total: number, max: number): Kids {
  const visit = s.nextSeq();
  // The first visit after a redrive keeps the children that succeeded before (see redrive-start.ts).
  const keep = s.ctx.keep?.state === name ? s.ctx.keep : undefined;
  delete s.ctx.keep;
  return {
    visit, prefix: `${s.env.selfId}/${s.env.tagOf(name)}.${visit}.`, total, live: {},
    results: new Array<unknown>(total).fill(null), resultBytes: 0, finished: 0, running: 0, next: 0, max, burst: 0, paused: false,
    ...(keep ? { kept: keep.results } : {}), ...(keep?.points ? { points: keep.points } : {}),
  };
}

/** Whether child `index` of this visit is kept from the attempt before a redrive (it does not run). */
export const isKept = (k: Kids, index: number): boolean => k.kept !== undefined && Object.hasOwn(k.kept, index);

/** Fills in a kept child's output as if it had just succeeded. */
function keepKid(k: Kids): void {
  const output = k.kept![k.next];
  k.results[k.next] = output;
  k.resultBytes += utf8Bytes(JSON.stringify(output ?? null)) + 1;
  k.finished += 1;
  k.next += 1;
}

/** What a kind builds for child `index`: its machine and input, or the fault that fails the state. */
export type KidBuild = { src: string; input: GraphInput } | { fault: Fault };

/**
 * Starts children while some are left and slots are free, at most KIDS_PER_TURN per turn; when
 * the turn is used up it asks for `sfn.kids.resume` after a yield. Returns the fault of a child
 * whose input could not be built (nothing more is started then).
 */
export function startKids(s: Step, build: (index: number) => KidBuild): Fault | null {
  const k: Kids = { ...s.ctx.kids!, live: { ...s.ctx.kids!.live } };
  s.ctx.kids = k;
  while (k.next < k.total) {
    // Kept children take no slot and no turn: they are filled in as soon as they come up.
    if (isKept(k, k.next)) {
      keepKid(k);
      continue;
    }
    if (k.running >= k.max) break;
    if (k.burst >= KIDS_PER_TURN) {
      if (!k.paused) {
        k.paused = true;
        s.later.push({ type: 'sfn.kids.resume' });
      }
      return null;
    }
    const index = k.next;
    const b = build(index);
    if ('fault' in b) return b.fault;
    const id = k.prefix + index;
    k.live[id] = index;
    k.next += 1;
    k.running += 1;
    k.burst += 1;
    // A child that failed in the attempt before a redrive starts again at its own redrive point (used once).
    const redrive = k.points?.[index];
    if (redrive) {
      k.points = { ...k.points };
      delete k.points[index];
    }
    s.spawn({ id, src: b.src, input: redrive ? { ...b.input, redrive } : b.input });
  }
  return null;
}

/** The turn after a yield: a fresh allowance of children. */
export function resumeKids(s: Step): void {
  s.ctx.kids = { ...s.ctx.kids!, burst: 0, paused: false };
}

/**
 * A child finished successfully: its output goes in at its index (in place: the array is the
 * visit's own) and counts towards the state's result size. Returns false when the results no
 * longer fit the payload quota.
 */
export function keepResult(s: Step, actorId: string, output: unknown): boolean {
  const k = s.ctx.kids!;
  const index = k.live[actorId]!;
  const live = { ...k.live };
  delete live[actorId];
  const resultBytes = k.resultBytes + utf8Bytes(JSON.stringify(output ?? null)) + 1;
  k.results[index] = output;
  s.ctx.kids = { ...k, live, resultBytes, finished: k.finished + 1, running: k.running - 1 };
  return resultBytes + 1 <= MAX_PAYLOAD_BYTES;
}

/** The index of a running child. */
export function kidIndex(ctx: GraphContext, actorId: string): number {
  return ctx.kids!.live[actorId]!;
}

export function isKid(ctx: GraphContext, actorId: string): boolean {
  return ctx.kids !== null && Object.hasOwn(ctx.kids.live, actorId);
}

/** The running child that actor `owner` is, or descends from (child ids hold no `/` past the prefix). */
export function kidOf(ctx: GraphContext, owner: string): string | undefined {
  const k = ctx.kids;
  if (!k || !owner.startsWith(k.prefix)) return undefined;
  const slash = owner.indexOf('/', k.prefix.length);
  const id = slash < 0 ? owner : owner.slice(0, slash);
  return Object.hasOwn(k.live, id) ? id : undefined;
}

export function liveKids(ctx: GraphContext): string[] {
  return ctx.kids ? Object.keys(ctx.kids.live) : [];
}

/** A child failed: where a redrive would start it again (see redrive-start.ts). */
export function notePoint(s: Step, actorId: string, out: SfnExecutionOutput): void {
  const k = s.ctx.kids!;
  if (out.status === 'SUCCEEDED' || !out.redrive) return;
  s.ctx.kids = { ...k, points: { ...k.points, [k.live[actorId]!]: out.redrive } };
}

/** The failure a finished child hands its Parallel or Map state. */
export function kidFault(out: SfnExecutionOutput): Fault {
  if (out.status === 'SUCCEEDED') return { error: '', cause: '' };
  return { error: out.error ?? '', cause: out.cause ?? '', ...(out.heartbeat ? { heartbeat: true as const } : {}) };
}

/** Kids as versions before 0.1 persisted them (`ids` per index, Map `items`): the running ones are the live children. */
interface LegacyKids { visit: number; ids: Array<string | null>; results: unknown[]; finished: number; running: number; next: number; items?: unknown[]; max?: number }

/** Brings kids persisted in the older form to this one (after a restore, before anything else runs). */
export function upgradeKids(kids: unknown, children: Record<string, unknown>, mapCap: number): Kids | null {
  if (kids === null || kids === undefined || 'live' in (kids as object)) return (kids ?? null) as Kids | null;
  const old = kids as LegacyKids;
  const any = old.ids.find((id): id is string => id !== null) ?? '';
  const live: Record<string, number> = {};
  old.ids.forEach((id, i) => { if (id !== null && Object.hasOwn(children, id)) live[id] = i; });
  const isMap = Array.isArray(old.items);
  return {
    visit: old.visit, prefix: any.slice(0, any.lastIndexOf('.') + 1), total: old.ids.length, live, results: old.results,
    resultBytes: 0, finished: old.finished, running: Object.keys(live).length, next: old.next,
    max: isMap ? (old.max ? Math.min(old.max, mapCap) : mapCap) : old.ids.length, burst: 0, paused: false,
  };
}
