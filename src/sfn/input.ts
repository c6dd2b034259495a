import { Fault } from '../protocol/faults.js';
import { InputReader } from '../protocol/validate.js';

/** The request body as an object (anything else is a SerializationException, as InputReader does). */
export function requestObject(input: unknown): Record<string, unknown> {
  InputReader.of(input);
  return (input ?? {}) as Record<string, unknown>;
}

const MAX_TAGS = 50;

/** Step Functions tags: key 1–128, value 0–256, at most 50 (more → TooManyTags). Read into `r`'s problems. */
export function readSfnTags(r: InputReader, raw: unknown, resource: string): { key: string; value?: string }[] | undefined {
  if (Array.isArray(raw) && raw.length > MAX_TAGS) throw new Fault('TooManyTags', `Too many tags: at most ${MAX_TAGS} may be set on '${resource}'`);
  return r.list('tags', { max: MAX_TAGS }, (t) => ({ key: t.str('key', { min: 1, max: 128, required: true }), value: t.str('value', { max: 256 }) }));
}

/** Reads ListActivities/ListStateMachines paging members: maxResults 0–1000 (0 ⇒ 100), nextToken 1–1024. */
export function readPaging(r: InputReader): { maxResults: number; nextToken?: string } {
  const maxResults = r.int('maxResults', { min: 0, max: 1000 });
  const nextToken = r.str('nextToken', { min: 1, max: 1024 });
  return { maxResults: maxResults || 100, nextToken };
}

/**
 * One page of a list sorted by name. The token holds the kind of list and the last name returned
 * (deletes between pages skip nothing); a token of another list or not ours → InvalidToken.
 */
export function pageByName<T extends { name: string }>(sorted: T[], kind: string, paging: { maxResults: number; nextToken?: string }):
  { items: T[]; nextToken?: string } {
  let start = 0;
  if (paging.nextToken !== undefined) {
    const after = decodeToken(paging.nextToken, kind);
    start = sorted.findIndex((x) => x.name > after);
    if (start < 0) start = sorted.length;
  }
  const items = sorted.slice(start, start + paging.maxResults);
  const more = start + paging.maxResults < sorted.length;
  return { items, nextToken: more ? Buffer.from(JSON.stringify({ k: kind, a: items.at(-1)!.name })).toString('base64url') : undefined };
}

function decodeToken(token: string, kind: string): string {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { k?: unknown; a?: unknown };
    if (t.k === kind && typeof t.a === 'string') return t.a;
  } catch { /* not ours */ }
  throw new Fault('InvalidToken', `Invalid Token: '${token.slice(0, 64)}'`);
}

/** Sorts by name in code-unit order (stable across nodes and locales). */
export const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
