import { Fault } from '../protocol/faults.js';
import { InputReader } from '../protocol/validate.js';
import { Registry, REQUEST_CAS_ATTEMPTS, retryOnConflict } from '../registry/registry.js';
import type { TypeKind } from '../registry/records.js';
import type { ServiceContext } from '../service/context.js';
import { requireDomain, requireType, typeLabel } from './domain-lookup.js';
import { typeField } from './operations/describe-type.js';

type Change = 'deprecate' | 'undeprecate' | 'delete';

async function changeType(ctx: ServiceContext, input: unknown, kind: TypeKind, change: Change): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const type = r.type(typeField(kind), true);
  r.done();
  await requireDomain(ctx, domain);
  const key = Registry.typeKey(kind, domain, type.name, type.version);
  const label = typeLabel(kind, type);
  // Another request changing the type at the same moment: read again, and answer as it left it.
  await retryOnConflict(async () => {
    const { value, revision } = await requireType(ctx, kind, domain, type);
    if (change === 'deprecate') {
      if (value.status === 'DEPRECATED') throw new Fault('TypeDeprecatedFault', label);
      await ctx.registry.update(key, { ...value, status: 'DEPRECATED', deprecationDate: ctx.clock.now() }, revision);
    } else if (change === 'undeprecate') {
      if (value.status === 'REGISTERED') throw new Fault('TypeAlreadyExistsFault', label);
      await ctx.registry.update(key, { ...value, status: 'REGISTERED', deprecationDate: undefined }, revision);
    } else {
      if (value.status !== 'DEPRECATED') throw new Fault('TypeNotDeprecatedFault', `Type is not deprecated: ${label}`);
      await ctx.registry.remove(key, revision);
    }
  }, REQUEST_CAS_ATTEMPTS);
  return {};
}

export const deprecateWorkflowType = (c: ServiceContext, i: unknown) => changeType(c, i, 'workflow', 'deprecate');
export const undeprecateWorkflowType = (c: ServiceContext, i: unknown) => changeType(c, i, 'workflow', 'undeprecate');
export const deleteWorkflowType = (c: ServiceContext, i: unknown) => changeType(c, i, 'workflow', 'delete');
export const deprecateActivityType = (c: ServiceContext, i: unknown) => changeType(c, i, 'activity', 'deprecate');
export const undeprecateActivityType = (c: ServiceContext, i: unknown) => changeType(c, i, 'activity', 'undeprecate');
export const deleteActivityType = (c: ServiceContext, i: unknown) => changeType(c, i, 'activity', 'delete');
