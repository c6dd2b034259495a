import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { RegistryConflictError, REQUEST_CAS_ATTEMPTS, retryOnConflict } from '../../registry/registry.js';
import { activityArn, validateSfnName } from '../arns.js';
import { sfnKeys, type ActivityRecord } from '../records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { findActivity, requireActivity } from '../lookup.js';
import { byName, pageByName, readPaging, readSfnTags, requestObject } from '../input.js';

/** AWS's default quota of activities per account and region. */
const MAX_ACTIVITIES = 10_000;

const listed = (a: ActivityRecord) => ({ activityArn: a.arn, name: a.name, creationDate: seconds(a.creationDate) });

/** CreateActivity: idempotent by name (an existing activity's ARN and creationDate come back); its tags are kept. */
export async function createActivity(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const tags = readSfnTags(r, body.tags, 'activity');
  r.struct('encryptionConfiguration', false, (e) => e.str('type', { max: 32, required: true, oneOf: ['AWS_OWNED_KEY', 'CUSTOMER_MANAGED_KMS_KEY'] }));
  r.done();
  const name = validateSfnName(body.name, 'name');
  const enc = (body.encryptionConfiguration as { type?: string } | undefined)?.type;
  if (enc === 'CUSTOMER_MANAGED_KMS_KEY') throw new Fault('ValidationException', 'CUSTOMER_MANAGED_KMS_KEY encryption is not supported: use AWS_OWNED_KEY');
  const key = sfnKeys.activity(name);
  const existing = await ctx.registry.get<ActivityRecord>(key);
  if (existing.value) return { activityArn: existing.value.arn, creationDate: seconds(existing.value.creationDate) };
  if ((await ctx.registry.list(sfnKeys.activities)).length >= MAX_ACTIVITIES) {
    throw new Fault('ActivityLimitExceeded', `Activity limit exceeded: at most ${MAX_ACTIVITIES} activities`);
  }
  const rec: ActivityRecord = { name, arn: activityArn(ctx, name), creationDate: ctx.clock.now(), ...(tags && tags.length > 0 ? { tags } : {}) };
  try {
    await ctx.registry.create(key, rec);
    return { activityArn: rec.arn, creationDate: seconds(rec.creationDate) };
  } catch (e) {
    if (!(e instanceof RegistryConflictError)) throw e;
    // Created concurrently: the same name is the same activity.
    const won = await ctx.registry.get<ActivityRecord>(key);
    if (!won.value) throw new Fault('ConflictException', `Activity '${name}' changed concurrently`, { retryable: true });
    return { activityArn: won.value.arn, creationDate: seconds(won.value.creationDate) };
  }
}

/** DescribeActivity: ActivityDoesNotExist unless the ARN names an activity of this region and account. */
export async function describeActivity(ctx: ServiceContext, input: unknown): Promise<object> {
  const { value } = await requireActivity(ctx, requestObject(input).activityArn);
  return listed(value);
}

/** ListActivities: sorted by name, maxResults 0–1000 (0 ⇒ 100), opaque nextToken. */
export async function listActivities(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const paging = readPaging(r);
  r.done();
  const all = (await ctx.registry.list<ActivityRecord>(sfnKeys.activities)).sort(byName);
  const p = pageByName(all, 'activities', paging);
  return { activities: p.items.map(listed), nextToken: p.nextToken };
}

/** DeleteActivity: deleting an activity that does not exist succeeds, as on AWS. */
export async function deleteActivity(ctx: ServiceContext, input: unknown): Promise<object> {
  const arn = requestObject(input).activityArn;
  // Deleted by another request at the same moment: read again; gone is a success.
  await retryOnConflict(async () => {
    const held = await findActivity(ctx, arn);
    if (held) await ctx.registry.remove(sfnKeys.activity(held.value.name), held.revision);
  }, REQUEST_CAS_ATTEMPTS);
  return {};
}
