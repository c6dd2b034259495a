import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { parseArn, parseRoleArn, parseStateMachineRef, stateMachineArn, validateSfnName } from '../arns.js';
import { sfnKeys, type StateMachineRecord } from '../records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { checkDefinition, newRevisionId, readDefinition, readOptions } from '../definition-input.js';
import { LOGGING_OFF, type SfnLoggingConfiguration } from '../express/logging-config.js';
import { byName, pageByName, readPaging, readSfnTags, requestObject } from '../input.js';
import { aliasesOf, findStateMachine, findVersion, requireStateMachine, versionsOf } from '../lookup.js';
import { casRetry } from './registry-cas.js';
import { checkVersionDescription, describeVersion, publishVersion } from './versions.js';

/** AWS's default quota of state machines per account and region. */
const MAX_STATE_MACHINES = 10_000;

const created = (sm: StateMachineRecord) => ({ stateMachineArn: sm.arn, creationDate: seconds(sm.creationDate) });

/** Two logging configurations that mean the same (absent is OFF). */
const sameLogging = (a: SfnLoggingConfiguration | undefined, b: SfnLoggingConfiguration | undefined): boolean =>
  JSON.stringify(a ?? LOGGING_OFF) === JSON.stringify(b ?? LOGGING_OFF);

/** With `publish: true`, the state machine's current revision as a version (its ARN goes into the answer). */
async function maybePublish(ctx: ServiceContext, body: Record<string, unknown>, sm: StateMachineRecord): Promise<object> {
  if (body.publish !== true) return {};
  const v = await publishVersion(ctx, sm, body.versionDescription as string | undefined);
  return { stateMachineVersionArn: v.arn };
}

/**
 * CreateStateMachine: idempotent for the same name, definition and roleArn; the same name with
 * anything else is StateMachineAlreadyExists. Every check runs before anything is written.
 */
export async function createStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  readDefinition(r, true);
  const tags = readSfnTags(r, body.tags, 'stateMachine');
  const opts = readOptions(r); // also throws r's problems
  const type = opts.type ?? 'STANDARD';
  checkVersionDescription(body);
  const name = validateSfnName(body.name, 'name');
  const roleArn = parseRoleArn(body.roleArn, 'roleArn');
  const definition = body.definition as string;
  await checkDefinition(definition, type);
  const key = sfnKeys.stateMachine(name);
  const arn = stateMachineArn(ctx, name);
  // A create that loses to a concurrent one compares with the winner on the next try.
  return casRetry(name, async () => {
    const existing = (await ctx.registry.get<StateMachineRecord>(key)).value;
    if (existing) {
      if (existing.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${arn}'`);
      if (existing.definition === definition && existing.roleArn === roleArn && existing.type === type && sameLogging(existing.loggingConfiguration, opts.loggingConfiguration)) {
        return { ...created(existing), ...await maybePublish(ctx, body, existing) };
      }
      throw new Fault('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`);
    }
    if ((await ctx.registry.list(sfnKeys.stateMachines)).length >= MAX_STATE_MACHINES) {
      throw new Fault('StateMachineLimitExceeded', `State machine limit exceeded: at most ${MAX_STATE_MACHINES} state machines`);
    }
    const rec: StateMachineRecord = {
      name, arn, definition, roleArn, type, creationDate: ctx.clock.now(), revisionId: newRevisionId(), status: 'ACTIVE',
      ...(opts.loggingConfiguration ? { loggingConfiguration: opts.loggingConfiguration } : {}),
      ...(tags && tags.length > 0 ? { tags } : {}),
    };
    await ctx.registry.create(key, rec);
    // A publish that loses a race retries alone: the create is not repeated.
    const version = await casRetry(name, () => maybePublish(ctx, body, rec));
    return { ...created(rec), ...version };
  });
}

/**
 * UpdateStateMachine: a new definition, roleArn and/or loggingConfiguration and a new revisionId.
 * Executions already running keep the definition they started with (they hold their own copy). The
 * type is fixed at create (the model's UpdateStateMachine has no `type`; one that differs is refused).
 */
export async function updateStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  readDefinition(r, false);
  const opts = readOptions(r);
  checkVersionDescription(body);
  const arn = body.stateMachineArn;
  parseArn(arn, 'stateMachine', 'stateMachineArn');
  if (body.definition === undefined && body.roleArn === undefined && opts.loggingConfiguration === undefined) {
    throw new Fault('ValidationException', 'Either the definition, the roleArn or the loggingConfiguration must be specified');
  }
  const roleArn = body.roleArn === undefined ? undefined : parseRoleArn(body.roleArn, 'roleArn');
  const definition = body.definition as string | undefined;
  // The type never changes, so it may be read before the compare-and-set loop.
  const { type } = (await requireStateMachine(ctx, arn)).value;
  if (opts.type !== undefined && opts.type !== type) {
    throw new Fault('ValidationException', `The type of a state machine cannot be changed: '${String(arn)}' is ${type}`);
  }
  if (definition !== undefined) await checkDefinition(definition, type);
  const logging = opts.loggingConfiguration;
  // An update that loses to another one is applied on top of it on the next try.
  return casRetry(String(arn), async () => {
    const held = await requireStateMachine(ctx, arn);
    if (held.value.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${String(arn)}'`);
    const sm = held.value;
    // Nothing changes: no new revision (AWS then answers without a revisionId; a publish gives the newest version again).
    if ((definition ?? sm.definition) === sm.definition && (roleArn ?? sm.roleArn) === sm.roleArn && (logging === undefined || sameLogging(logging, sm.loggingConfiguration))) {
      return { updateDate: seconds(ctx.clock.now()), ...await maybePublish(ctx, body, sm) };
    }
    const next: StateMachineRecord = {
      ...sm, definition: definition ?? sm.definition, roleArn: roleArn ?? sm.roleArn, updateDate: ctx.clock.now(), revisionId: newRevisionId(),
      ...(logging ? { loggingConfiguration: logging } : {}),
    };
    await ctx.registry.update(sfnKeys.stateMachine(next.name), next, held.revision);
    return { updateDate: seconds(next.updateDate!), revisionId: next.revisionId, ...await maybePublish(ctx, body, next) };
  });
}

/** DescribeStateMachine: StateMachineDoesNotExist unless the ARN names one of this region and account. */
export async function describeStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const arn = requestObject(input).stateMachineArn;
  const ref = parseStateMachineRef(arn, 'stateMachineArn', { version: true });
  if (ref.version !== undefined) {
    const v = await findVersion(ctx, arn as string, ref);
    if (!v) throw new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(arn)}'`);
    return describeVersion(v.value);
  }
  const { value: sm } = await requireStateMachine(ctx, arn);
  return {
    stateMachineArn: sm.arn, name: sm.name, status: sm.status, definition: sm.definition, roleArn: sm.roleArn,
    type: sm.type, creationDate: seconds(sm.creationDate), revisionId: sm.revisionId,
    loggingConfiguration: sm.loggingConfiguration ?? LOGGING_OFF,
  };
}

/** ListStateMachines: sorted by name, maxResults 0–1000 (0 ⇒ 100), opaque nextToken. */
export async function listStateMachines(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const paging = readPaging(r);
  r.done();
  const all = (await ctx.registry.list<StateMachineRecord>(sfnKeys.stateMachines)).sort(byName);
  const p = pageByName(all, 'stateMachines', paging);
  return {
    stateMachines: p.items.map((sm) => ({ stateMachineArn: sm.arn, name: sm.name, type: sm.type, creationDate: seconds(sm.creationDate) })),
    nextToken: p.nextToken,
  };
}

/** DeleteStateMachine takes the state machine's versions and aliases with it (as AWS does). */
async function removeVersionsAndAliases(ctx: ServiceContext, name: string): Promise<void> {
  const keys = [...(await aliasesOf(ctx, name)).map((a) => sfnKeys.alias(name, a.name)), ...(await versionsOf(ctx, name)).map((v) => sfnKeys.version(name, v.version))];
  for (const key of keys) {
    const got = await ctx.registry.get(key, { fresh: true });
    if (got.value !== null) await ctx.registry.remove(key, got.revision).catch(() => undefined); // changed meanwhile: its writer sees the state machine gone
  }
}

/**
 * DeleteStateMachine: removes it at once (later StartExecution → StateMachineDoesNotExist); running
 * executions carry their own definition and go on. Deleting one that does not exist succeeds.
 */
export async function deleteStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const arn = requestObject(input).stateMachineArn;
  // Changed meanwhile (an update): read again.
  return casRetry(String(arn), async () => {
    const held = await findStateMachine(ctx, arn);
    if (!held) return {};
    await ctx.registry.remove(sfnKeys.stateMachine(held.value.name), held.revision);
    await removeVersionsAndAliases(ctx, held.value.name);
    return {};
  });
}
