import { domainNameOfArn } from '../../protocol/domain-arn.js';
import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { Registry, retryOnConflict } from '../../registry/registry.js';
import type { DomainRecord } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';

/** SWF tags: at most 50 per domain, unicode letters, digits, whitespace and `_ . : / = + - @`. */
export const MAX_TAGS = 50;
const TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
const CHARS_RULE = 'Member must satisfy regular expression pattern: ^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$';

type Tag = DomainRecord['tags'][number];

function tagString(r: InputReader, name: string, min: number, max: number, required: boolean): string | undefined {
  const v = r.str(name, { min, max, required });
  if (v !== undefined && !TAG_CHARS.test(v)) r.problem(name, v, CHARS_RULE);
  return v;
}

/** The domain an ARN names, or UnknownResourceFault. */
async function domainOfArn(ctx: ServiceContext, arn: string, opts: { fresh?: boolean } = {}): Promise<{ value: DomainRecord; revision: number }> {
  const unknown = new Fault('UnknownResourceFault', `Unknown resource: ${arn}`);
  const name = domainNameOfArn(ctx, arn);
  if (name === undefined) throw unknown;
  const d = await ctx.registry.domain(name, opts);
  if (!d.value) throw unknown;
  return { value: d.value, revision: d.revision };
}

/** Tag changes of one domain on this node, one after the other (the revision check covers other nodes). */
const queues = new Map<string, Promise<unknown>>();

function serially<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => { if (queues.get(key) === tail) queues.delete(key); });
  return run;
}

/** Changes a domain's tags with the registry's revision check, retrying (with jitter) when another writer won. */
function updateTags(ctx: ServiceContext, arn: string, change: (tags: Tag[]) => Tag[]): Promise<void> {
  // 21 tries as before; the waits, 0–50 ms of pure jitter before, are now a backoff with jitter.
  return serially(arn, () => retryOnConflict(async () => {
    const { value, revision } = await domainOfArn(ctx, arn);
    await ctx.registry.update(Registry.domainKey(value.name), { ...value, tags: change(value.tags ?? []) }, revision);
  }, 21));
}

export async function tagResource(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const arn = r.str('resourceArn', { min: 1, max: 1600, required: true });
  const tags = r.list('tags', { max: 1000, required: true }, (t) => {
    const tag: Tag = { key: tagString(t, 'key', 1, 128, true)! };
    const value = tagString(t, 'value', 0, 256, false);
    if (value !== undefined) tag.value = value;
    return tag;
  })!;
  r.done();
  await updateTags(ctx, arn, (current) => {
    const byKey = new Map(current.map((t) => [t.key, t]));
    for (const t of tags) byKey.set(t.key, t);
    if (byKey.size > MAX_TAGS) throw new Fault('TooManyTagsFault', `A domain can have at most ${MAX_TAGS} tags; this would make ${byKey.size}`);
    return [...byKey.values()];
  });
  return {};
}

export async function untagResource(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const arn = r.str('resourceArn', { min: 1, max: 1600, required: true });
  const keys = r.list('tagKeys', { max: 1000, required: true }, (_k, item, i) => {
    if (typeof item !== 'string') throw new Fault('SerializationException', 'tagKeys members must be strings');
    if (item.length < 1 || item.length > 128) r.problem(`tagKeys.${i + 1}.member`, item, 'Member must have length between 1 and 128');
    else if (!TAG_CHARS.test(item)) r.problem(`tagKeys.${i + 1}.member`, item, CHARS_RULE);
    return item;
  })!;
  r.done();
  const gone = new Set(keys);
  await updateTags(ctx, arn, (current) => current.filter((t) => !gone.has(t.key)));
  return {};
}

export async function listTagsForResource(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const arn = r.str('resourceArn', { min: 1, max: 1600, required: true });
  r.done();
  const { value } = await domainOfArn(ctx, arn, { fresh: true });
  return { tags: (value.tags ?? []).map((t) => ({ key: t.key, value: t.value })) };
}
