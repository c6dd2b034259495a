import { Fault } from '../domain/faults.js';
import { InputReader } from '../domain/validate.js';
import { Registry } from '../registry/registry.js';
import type { ServiceContext } from './context.js';
import { requireDomain } from './domain-lookup.js';

async function setDomainStatus(ctx: ServiceContext, input: unknown, to: 'REGISTERED' | 'DEPRECATED'): Promise<object> {
  const r = InputReader.of(input);
  const name = r.id('name', true);
  r.done();
  const { value, revision } = await requireDomain(ctx, name);
  if (value.status === to) {
    throw to === 'DEPRECATED'
      ? new Fault('DomainDeprecatedFault', name)
      : new Fault('DomainAlreadyExistsFault', name);
  }
  await ctx.registry.update(Registry.domainKey(name), { ...value, status: to }, revision);
  return {};
}

export const deprecateDomain = (ctx: ServiceContext, input: unknown) => setDomainStatus(ctx, input, 'DEPRECATED');
export const undeprecateDomain = (ctx: ServiceContext, input: unknown) => setDomainStatus(ctx, input, 'REGISTERED');
