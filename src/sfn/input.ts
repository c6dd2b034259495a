import { Fault } from '../protocol/faults.js';
import { InputReader } from '../protocol/validate.js';
import type { SfnTag } from './records.js';

/** The request body as an object (anything else is a SerializationException, as InputReader does). */
export function requestObject(input: unknown): Record<string, unknown> {
  InputReader.of(input);
  return (input ?? {}) as Record<string, unknown>;
}

/** AWS's quota of tags on one Step Functions resource. */
export const MAX_TAGS = 50;
/** The characters AWS allows in tag keys and values: Unicode letters, digits, white space and `_ . : / = + - @`. */
const TAG_CHARS = /^[\p{L}\p{N}\p{Z}_.:/=+\-@]*$/u;

/** Why a tag key or value breaks AWS's tag rules (characters; the reserved `aws:` key prefix), or undefined. */
function tagProblem(r: InputReader, member: string, v: string | undefined, isKey: boolean): void {
  if (v === undefined) return;
  if (!TAG_CHARS.test(v)) r.problem(member, v, 'Member must satisfy regular expression pattern: ^[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*$');
  else if (isKey && v.toLowerCase().startsWith('aws:')) r.problem(member, v, "Tag keys must not begin with the reserved prefix 'aws:'");
}

/** One tag key read from `r` (1–128 characters, AWS's characters, not `aws:…`). */
function readTagKey(r: InputReader, member: string): string {
  const key = r.str(member, { min: 1, max: 128, required: true });
  tagProblem(r, member, key, true);
  return key;
}

/**
 * Step Functions tags: key 1–128, value 0–256, AWS's characters, no `aws:` key prefix, at most 50
 * (more → TooManyTags). Read into `r`'s problems.
 */
export function readSfnTags(r: InputReader, raw: unknown, resource: string, member = 'tags'): SfnTag[] | undefined {
  if (Array.isArray(raw) && raw.length > MAX_TAGS) throw tooManyTags(resource);
  return r.list(member, { max: MAX_TAGS }, (t) => {
    const key = readTagKey(t, 'key');
    const value = t.str('value', { max: 256 });
    tagProblem(t, 'value', value, false);
    return value === undefined ? { key } : { key, value };
  });
}

/** AWS's TooManyTags for a resource that would carry more than MAX_TAGS tags. */
export const tooManyTags = (resource: string): Fault => new Fault('TooManyTags', `Too many tags: at most ${MAX_TAGS} may be set on '${resource}'`);

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
  return pageByKey(sorted, kind, paging, (x) => x.name);
}

/** pageByName for a list sorted ascending by `key` (in code-unit order). */
export function pageByKey<T>(sorted: T[], kind: string, paging: { maxResults: number; nextToken?: string }, key: (x: T) => string):
  { items: T[]; nextToken?: string } {
  let start = 0;
  if (paging.nextToken !== undefined) {
    const after = decodeToken(paging.nextToken, kind);
    start = sorted.findIndex((x) => key(x) > after);
    if (start < 0) start = sorted.length;
  }
  const items = sorted.slice(start, start + paging.maxResults);
  const more = start + paging.maxResults < sorted.length;
  return { items, nextToken: more ? Buffer.from(JSON.stringify({ k: kind, a: key(items.at(-1)!) })).toString('base64url') : undefined };
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
