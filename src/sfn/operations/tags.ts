import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { parseArn } from '../arns.js';
import { sfnKeys, type ActivityRecord, type SfnTag, type StateMachineRecord } from '../records.js';
import type { ServiceContext } from '../../service/context.js';
import { MAX_TAGS, readSfnTags, requestObject, tooManyTags } from '../input.js';
import { findActivity, findStateMachine, type Held } from '../lookup.js';
import { casRetry } from './registry-cas.js';

/** The registry record a resourceArn names: an activity or a state machine (versions and aliases carry no tags). */
interface Tagged { key: string; held: Held<ActivityRecord | StateMachineRecord> }

const notFound = (arn: unknown) => new Fault('ResourceNotFound', `Resource not found: '${String(arn)}'`);

/**
 * The activity or state machine `resourceArn` names. A malformed ARN is InvalidArn; a well-formed
 * one that names nothing here (another account, a version or alias, an execution) is ResourceNotFound.
 */
async function findTagged(ctx: ServiceContext, arn: unknown, opts: { fresh?: boolean } = {}): Promise<Tagged> {
  if (typeof arn === 'string' && /^arn:[^:]+:states:[^:]*:[^:]*:activity:/.test(arn)) {
    const held = await findActivity(ctx, arn, 'resourceArn', opts);
    if (held) return { key: sfnKeys.activity(held.value.name), held };
    throw notFound(arn);
  }
  let plain = true;
  try { parseArn(arn, 'stateMachine', 'resourceArn'); } catch (e) {
    // A version, alias or execution ARN is well formed, but carries no tags.
    if (typeof arn === 'string' && /^arn:[^:]+:states:[^:]*:\d{12}:(stateMachine|execution):[^:]+:[^:]+$/.test(arn)) plain = false;
    else throw e;
  }
  const held = plain ? await findStateMachine(ctx, arn, 'resourceArn', opts) : undefined;
  if (!held) throw notFound(arn);
  return { key: sfnKeys.stateMachine(held.value.name), held };
}

/** TagResource: adds tags (a key already set takes the new value); more than 50 in all → TooManyTags. */
export async function tagResource(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  if (body.tags === undefined || body.tags === null) r.problem('tags', null, 'Member must not be null');
  const tags = readSfnTags(r, body.tags, String(body.resourceArn)) ?? [];
  r.done();
  return casRetry(String(body.resourceArn), async () => {
    const { key, held } = await findTagged(ctx, body.resourceArn);
    const merged = new Map((held.value.tags ?? []).map((t) => [t.key, t]));
    for (const t of tags) merged.set(t.key, t);
    if (merged.size > MAX_TAGS) throw tooManyTags(held.value.arn);
    await ctx.registry.update(key, { ...held.value, tags: [...merged.values()] }, held.revision);
    return {};
  });
}

/** UntagResource: removes the tags of these keys (keys not set are ignored). */
export async function untagResource(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const keys = r.list('tagKeys', { max: Number.MAX_SAFE_INTEGER, required: true }, (_k, item) => {
    if (typeof item !== 'string') throw new Fault('SerializationException', 'tagKeys members must be strings');
    return item;
  });
  for (const [i, k] of (keys ?? []).entries()) if (k.length < 1 || k.length > 128) r.problem(`tagKeys.${i + 1}.member`, k, 'Member must have length between 1 and 128');
  r.done();
  const drop = new Set(keys);
  return casRetry(String(body.resourceArn), async () => {
    const { key, held } = await findTagged(ctx, body.resourceArn);
    const kept: SfnTag[] = (held.value.tags ?? []).filter((t) => !drop.has(t.key));
    if (kept.length !== (held.value.tags ?? []).length) await ctx.registry.update(key, { ...held.value, tags: kept }, held.revision);
    return {};
  });
}

/** ListTagsForResource: the tags of an activity or state machine, in the order they were first set. */
export async function listTagsForResource(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  InputReader.of(input).done();
  // Read from the bucket: tags set through another node a moment ago are shown.
  const { held } = await findTagged(ctx, body.resourceArn, { fresh: true });
  return { tags: (held.value.tags ?? []).map((t) => ({ key: t.key, value: t.value ?? '' })) };
}
