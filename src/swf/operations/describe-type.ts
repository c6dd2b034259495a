import { InputReader } from '../../protocol/validate.js';
import type { TypeKind, TypeRecord } from '../../registry/records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { requireDomain, requireType } from '../domain-lookup.js';

export const typeField = (kind: TypeKind) => (kind === 'workflow' ? 'workflowType' : 'activityType');

export function typeInfo(t: TypeRecord): object {
  return {
    [typeField(t.kind)]: { name: t.name, version: t.version },
    status: t.status,
    description: t.description,
    creationDate: seconds(t.creationDate),
    deprecationDate: t.deprecationDate === undefined ? undefined : seconds(t.deprecationDate),
  };
}

async function describeType(ctx: ServiceContext, input: unknown, kind: TypeKind): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const type = r.type(typeField(kind), true);
  r.done();
  await requireDomain(ctx, domain);
  const { value } = await requireType(ctx, kind, domain, type, { fresh: true });
  return { typeInfo: typeInfo(value), configuration: value.config };
}

export const describeWorkflowType = (ctx: ServiceContext, input: unknown) => describeType(ctx, input, 'workflow');
export const describeActivityType = (ctx: ServiceContext, input: unknown) => describeType(ctx, input, 'activity');
