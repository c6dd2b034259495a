import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { RegistryConflictError, retryOnConflict } from '../../registry/registry.js';
import { parseArn, parseRoleArn, stateMachineArn, validateSfnName } from '../arns.js';
import { sfnKeys, type StateMachineRecord } from '../records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { checkDefinition, newRevisionId, readDefinition, refuseUnsupported } from '../definition-input.js';
import { byName, pageByName, readPaging, readSfnTags, requestObject } from '../input.js';
import { findStateMachine, requireStateMachine } from '../lookup.js';

/** AWS's default quota of state machines per account and region. */
const MAX_STATE_MACHINES = 10_000;
/** Attempts at a compare-and-set registry write before answering ConflictException. */
const CAS_ATTEMPTS = 5;

/** A compare-and-set registry step, tried CAS_ATTEMPTS times; still beaten, it answers ConflictException. */
async function casRetry<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await retryOnConflict(step, CAS_ATTEMPTS);
  } catch (e) {
    if (e instanceof RegistryConflictError) throw new Fault('ConflictException', `State machine '${what}' changed concurrently`, { cause: e, retryable: true });
    throw e;
  }
}

const created = (sm: StateMachineRecord) => ({ stateMachineArn: sm.arn, creationDate: seconds(sm.creationDate) });

/**
 * CreateStateMachine: idempotent for the same name, definition and roleArn; the same name with
 * anything else is StateMachineAlreadyExists. Every check runs before anything is written.
 */
export async function createStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  readDefinition(r, true);
  readSfnTags(r, body.tags, 'stateMachine');
  refuseUnsupported(r, body); // also throws r's problems
  const name = validateSfnName(body.name, 'name');
  const roleArn = parseRoleArn(body.roleArn, 'roleArn');
  const definition = body.definition as string;
  await checkDefinition(definition);
  const key = sfnKeys.stateMachine(name);
  const arn = stateMachineArn(ctx, name);
  // A create that loses to a concurrent one compares with the winner on the next try.
  return casRetry(name, async () => {
    const existing = (await ctx.registry.get<StateMachineRecord>(key)).value;
    if (existing) {
      if (existing.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${arn}'`);
      if (existing.definition === definition && existing.roleArn === roleArn) return created(existing);
      throw new Fault('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`);
    }
    if ((await ctx.registry.list(sfnKeys.stateMachines)).length >= MAX_STATE_MACHINES) {
      throw new Fault('StateMachineLimitExceeded', `State machine limit exceeded: at most ${MAX_STATE_MACHINES} state machines`);
    }
    const rec: StateMachineRecord = {
      name, arn, definition, roleArn, type: 'STANDARD', creationDate: ctx.clock.now(), revisionId: newRevisionId(), status: 'ACTIVE',
    };
    await ctx.registry.create(key, rec);
    return created(rec);
  });
}

/**
 * UpdateStateMachine: a new definition and/or roleArn and a new revisionId. Executions already
 * running keep the definition they started with (they hold their own copy).
 */
export async function updateStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  readDefinition(r, false);
  refuseUnsupported(r, body);
  const arn = body.stateMachineArn;
  parseArn(arn, 'stateMachine', 'stateMachineArn');
  if (body.definition === undefined && body.roleArn === undefined) {
    throw new Fault('ValidationException', 'Either the definition or the roleArn must be specified');
  }
  const roleArn = body.roleArn === undefined ? undefined : parseRoleArn(body.roleArn, 'roleArn');
  const definition = body.definition as string | undefined;
  if (definition !== undefined) await checkDefinition(definition);
  // An update that loses to another one is applied on top of it on the next try.
  return casRetry(String(arn), async () => {
    const held = await requireStateMachine(ctx, arn);
    if (held.value.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${String(arn)}'`);
    const next: StateMachineRecord = {
      ...held.value, definition: definition ?? held.value.definition, roleArn: roleArn ?? held.value.roleArn,
      updateDate: ctx.clock.now(), revisionId: newRevisionId(),
    };
    await ctx.registry.update(sfnKeys.stateMachine(next.name), next, held.revision);
    return { updateDate: seconds(next.updateDate!), revisionId: next.revisionId };
  });
}

/** DescribeStateMachine: StateMachineDoesNotExist unless the ARN names one of this region and account. */
export async function describeStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const { value: sm } = await requireStateMachine(ctx, requestObject(input).stateMachineArn);
  return {
    stateMachineArn: sm.arn, name: sm.name, status: sm.status, definition: sm.definition, roleArn: sm.roleArn,
    type: sm.type, creationDate: seconds(sm.creationDate), revisionId: sm.revisionId,
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

/**
 * DeleteStateMachine: removes it at once (later StartExecution → StateMachineDoesNotExist); running
 * executions carry their own definition and go on. Deleting one that does not exist succeeds.
 */
export async function deleteStateMachine(ctx: ServiceContext, input: unknown): Promise<object> {
  const arn = requestObject(input).stateMachineArn;
  // Changed meanwhile (an update): read again.
  return casRetry(String(arn), async () => {
    const held = await findStateMachine(ctx, arn);
    if (held) await ctx.registry.remove(sfnKeys.stateMachine(held.value.name), held.revision);
    return {};
  });
}
