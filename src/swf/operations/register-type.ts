import { Fault, fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { CHILD_POLICIES } from '../decisions.js';
import { Registry, RegistryConflictError } from '../../registry/registry.js';
import type { ActivityTypeConfig, TypeKind, TypeRecord, WorkflowTypeConfig } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain, typeLabel } from '../domain-lookup.js';


function workflowConfig(r: InputReader): WorkflowTypeConfig {
  return {
    defaultTaskStartToCloseTimeout: r.duration('defaultTaskStartToCloseTimeout', { allowNone: true }),
    defaultExecutionStartToCloseTimeout: r.duration('defaultExecutionStartToCloseTimeout', { allowNone: false }),
    defaultTaskList: r.taskList('defaultTaskList', false),
    defaultTaskPriority: r.priority('defaultTaskPriority'),
    defaultChildPolicy: r.str('defaultChildPolicy', { max: 16, oneOf: CHILD_POLICIES }),
    defaultLambdaRole: r.str('defaultLambdaRole', { min: 1, max: 1224 }),
  };
}

function activityConfig(r: InputReader): ActivityTypeConfig {
  return {
    defaultTaskStartToCloseTimeout: r.duration('defaultTaskStartToCloseTimeout', { allowNone: true }),
    defaultTaskHeartbeatTimeout: r.duration('defaultTaskHeartbeatTimeout', { allowNone: true }),
    defaultTaskList: r.taskList('defaultTaskList', false),
    defaultTaskPriority: r.priority('defaultTaskPriority'),
    defaultTaskScheduleToStartTimeout: r.duration('defaultTaskScheduleToStartTimeout', { allowNone: true }),
    defaultTaskScheduleToCloseTimeout: r.duration('defaultTaskScheduleToCloseTimeout', { allowNone: true }),
  };
}


const MAX_TYPES = 10_000;

async function registerType(ctx: ServiceContext, input: unknown, kind: TypeKind): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const name = r.id('name', true);
  const version = r.id('version', true, 64);
  const description = r.str('description', { max: 1024 });
  const config = kind === 'workflow' ? workflowConfig(r) : activityConfig(r);
  r.done();
  // AWS: a deprecated domain "cannot be used to ... register new types".
  if ((await requireDomain(ctx, domain)).value.status === 'DEPRECATED') throw fault.domainDeprecated(domain);
  if ((await ctx.registry.list(Registry.typePrefix(kind, domain))).length >= MAX_TYPES) {
    throw new Fault('LimitExceededFault', `at most ${MAX_TYPES} ${kind} types per domain`);
  }
  const rec: TypeRecord = { kind, domain, name, version, status: 'REGISTERED', description, creationDate: ctx.clock.now(), config };
  try {
    await ctx.registry.create(Registry.typeKey(kind, domain, name, version), rec);
  } catch (e) {
    if (e instanceof RegistryConflictError) throw new Fault('TypeAlreadyExistsFault', typeLabel(kind, { name, version }));
    throw e;
  }
  return {};
}

export const registerWorkflowType = (ctx: ServiceContext, input: unknown) => registerType(ctx, input, 'workflow');
export const registerActivityType = (ctx: ServiceContext, input: unknown) => registerType(ctx, input, 'activity');
