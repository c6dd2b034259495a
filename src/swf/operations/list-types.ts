import { InputReader } from '../../protocol/validate.js';
import { Registry } from '../../registry/registry.js';
import type { TypeKind, TypeRecord } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';
import { page, requireDomain } from '../domain-lookup.js';
import { typeInfo } from './describe-type.js';

async function listTypes(ctx: ServiceContext, input: unknown, kind: TypeKind): Promise<object> {
  const r = InputReader.of(input);
  const domain = r.id('domain', true);
  const name = r.id('name', false);
  const status = r.str('registrationStatus', { max: 16, required: true, oneOf: ['REGISTERED', 'DEPRECATED'] });
  const token = r.str('nextPageToken', { max: 2048 });
  const size = r.pageSize();
  const reverse = r.bool('reverseOrder') ?? false;
  r.done();
  await requireDomain(ctx, domain);
  const all = (await ctx.registry.list<TypeRecord>(Registry.typePrefix(kind, domain)))
    .filter((t) => t.status === status && (name === undefined || t.name === name))
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  if (reverse) all.reverse();
  const p = page(all, size, token);
  return { typeInfos: p.items.map(typeInfo), nextPageToken: p.nextPageToken };
}

export const listWorkflowTypes = (ctx: ServiceContext, input: unknown) => listTypes(ctx, input, 'workflow');
export const listActivityTypes = (ctx: ServiceContext, input: unknown) => listTypes(ctx, input, 'activity');
