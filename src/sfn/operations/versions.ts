import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { parseStateMachineRef, versionArn } from '../arns.js';
import { sfnKeys, type StateMachineRecord, type StateMachineVersionRecord } from '../records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { pageByKey, readPaging, requestObject } from '../input.js';
import { aliasesOf, findStateMachine, findVersion, requireStateMachine, versionsOf } from '../lookup.js';
import { casRetry } from './registry-cas.js';
import { RegistryConflictError, retryOnConflict } from '../../registry/registry.js';

/** AWS's quota of published versions per state machine. */
export const MAX_VERSIONS = 1000;
/** The longest version description (the model's VersionDescription). */
export const MAX_VERSION_DESCRIPTION = 256;
/** DeleteStateMachineVersion's ARN is a LongArn. */
const MAX_LONG_ARN = 2000;

const published = (v: StateMachineVersionRecord) => ({ stateMachineVersionArn: v.arn, creationDate: seconds(v.creationDate) });

/**
 * Publishes the state machine's current revision as its next version, as one step of a caller's
 * compare-and-set loop (casRetry). The version's key is created first (its create is the fence: of two
 * concurrent publishes one wins, the other's retry finds the winner's version of the same revision),
 * then the state machine's `lastVersion` is raised, so a number is never used twice even once its
 * version is deleted. Publishing a revision that the newest version already holds returns that
 * version (AWS: PublishStateMachineVersion is idempotent).
 */
export async function publishVersion(ctx: ServiceContext, sm: StateMachineRecord, description: string | undefined): Promise<StateMachineVersionRecord> {
  const versions = await versionsOf(ctx, sm.name);
  const newest = versions.at(-1);
  if (newest && newest.revisionId === sm.revisionId) return newest;
  if (versions.length >= MAX_VERSIONS) {
    throw new Fault('ServiceQuotaExceededException', `Maximum number of versions (${MAX_VERSIONS}) reached for state machine '${sm.arn}'`);
  }
  const version = Math.max(sm.lastVersion ?? 0, newest?.version ?? 0) + 1;
  const rec: StateMachineVersionRecord = {
    stateMachineName: sm.name, arn: versionArn(sm.arn, version), version, definition: sm.definition, roleArn: sm.roleArn,
    type: sm.type, revisionId: sm.revisionId, creationDate: ctx.clock.now(), ...(description !== undefined ? { description } : {}),
  };
  const key = sfnKeys.version(sm.name, version);
  try {
    await ctx.registry.create(key, rec);
  } catch (e) {
    // Another publish took the number: read its version now, so the retry sees it (the watch may lag).
    if (e instanceof RegistryConflictError) await ctx.registry.get(key, { fresh: true });
    throw e;
  }
  await raiseLastVersion(ctx, sm.name, version);
  return rec;
}

/** Raises a state machine's `lastVersion` to at least `version` (compare-and-set, retried). */
async function raiseLastVersion(ctx: ServiceContext, name: string, version: number): Promise<void> {
  const key = sfnKeys.stateMachine(name);
  await retryOnConflict(async () => {
    const got = await ctx.registry.get<StateMachineRecord>(key, { fresh: true });
    if (!got.value || (got.value.lastVersion ?? 0) >= version) return;
    await ctx.registry.update(key, { ...got.value, lastVersion: version } satisfies StateMachineRecord, got.revision);
  });
}

/** `versionDescription` without `publish: true` is refused, in AWS's words. */
export function checkVersionDescription(body: Record<string, unknown>): void {
  if (body.versionDescription !== undefined && body.publish !== true) {
    throw new Fault('ValidationException', 'Version description can only be set when publish is true');
  }
}

/**
 * PublishStateMachineVersion: the current revision as a new numbered, immutable version. With
 * `revisionId`, only while that is still the current revision (else ConflictException, AWS's text).
 */
export async function publishStateMachineVersion(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const revisionId = r.str('revisionId', { max: 256 });
  const description = r.str('description', { max: MAX_VERSION_DESCRIPTION });
  r.done();
  return casRetry(String(body.stateMachineArn), async () => {
    const held = await requireStateMachine(ctx, body.stateMachineArn);
    const sm = held.value;
    if (sm.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${sm.arn}'`);
    // INITIAL names the revision a state machine was created with (AWS: one never updated).
    const current = revisionId === 'INITIAL' && sm.updateDate === undefined ? sm.revisionId : revisionId;
    if (current !== undefined && current !== sm.revisionId) {
      throw new Fault('ConflictException', `Failed to publish the State Machine version for revision ${revisionId}. The current State Machine revision is ${sm.revisionId}.`);
    }
    return published(await publishVersion(ctx, sm, description));
  });
}

/** Newest first: keys that sort ascending as the numbers descend. */
const newestFirstKey = (v: StateMachineVersionRecord): string => String(10_000_000_000 - v.version).padStart(11, '0');

/** ListStateMachineVersions: newest first, maxResults 0–1000 (0 ⇒ 100), opaque nextToken. */
export async function listStateMachineVersions(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const paging = readPaging(r);
  r.done();
  const held = await findStateMachine(ctx, body.stateMachineArn);
  const all = held ? (await versionsOf(ctx, held.value.name)).reverse() : [];
  const p = pageByKey(all, `versions:${String(body.stateMachineArn)}`, paging, newestFirstKey);
  return { stateMachineVersions: p.items.map(published), nextToken: p.nextToken };
}

/**
 * DeleteStateMachineVersion: refused with ConflictException (AWS's text) while an alias routes to the
 * version; deleting one that does not exist succeeds. Executions running it go on (they hold their copy).
 */
export async function deleteStateMachineVersion(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  InputReader.of(input).done();
  const arn = body.stateMachineVersionArn;
  const ref = parseStateMachineRef(arn, 'stateMachineVersionArn', { version: true, plain: false }, MAX_LONG_ARN);
  return casRetry(String(arn), async () => {
    const held = await findVersion(ctx, arn as string, ref);
    if (!held) return {};
    const routing = (await aliasesOf(ctx, ref.name)).filter((a) => a.routingConfiguration.some((x) => x.stateMachineVersionArn === held.value.arn));
    if (routing.length > 0) {
      throw new Fault('ConflictException',
        `Version to be deleted must not be referenced by an alias. Current list of aliases referencing this version: [${routing.map((a) => a.name).join(', ')}]`);
    }
    await ctx.registry.remove(sfnKeys.version(ref.name, held.value.version), held.revision);
    return {};
  });
}

/** DescribeStateMachine of a version ARN: the version's definition, role, revision and description. */
export function describeVersion(v: StateMachineVersionRecord): object {
  return {
    stateMachineArn: v.arn, name: v.stateMachineName, status: 'ACTIVE', definition: v.definition, roleArn: v.roleArn, type: v.type,
    creationDate: seconds(v.creationDate), revisionId: v.revisionId, ...(v.description !== undefined ? { description: v.description } : {}),
  };
}
