import { Fault, fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { Registry, REQUEST_CAS_ATTEMPTS, retryOnConflict } from '../../registry/registry.js';
import type { TypeKind, TypeRecord } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';

async function setDomainStatus(ctx: ServiceContext, input: unknown, to: 'REGISTERED' | 'DEPRECATED'): Promise<object> {
  const r = InputReader.of(input);
  const name = r.id('name', true);
  r.done();
  // Another request changing the domain at the same moment: read again, and answer as it left it.
  await retryOnConflict(async () => {
    const { value, revision } = await requireDomain(ctx, name);
    if (value.status === to) {
      throw to === 'DEPRECATED' ? fault.domainDeprecated(name) : new Fault('DomainAlreadyExistsFault', name);
    }
    await ctx.registry.update(Registry.domainKey(name), { ...value, status: to }, revision);
  }, REQUEST_CAS_ATTEMPTS);
  if (to === 'DEPRECATED') {
    // AWS: "Deprecating a domain also deprecates all activity and workflow types registered in the
    // domain." The domain is deprecated first, so no type can be registered behind this sweep.
    for (const kind of ['workflow', 'activity'] as const) await deprecateTypes(ctx, kind, name);
  }
  return {};
}

/** Types updated at once by DeprecateDomain (a domain holds up to 10,000 of each kind). */
const SWEEP_BATCH = 32;

/** Marks every REGISTERED type of `kind` in the domain DEPRECATED (re-reading a type another writer changed). */
async function deprecateTypes(ctx: ServiceContext, kind: TypeKind, domain: string): Promise<void> {
  const at = ctx.clock.now();
  const keys = (await ctx.registry.list<TypeRecord>(Registry.typePrefix(kind, domain)))
    .map((t) => Registry.typeKey(kind, domain, t.name, t.version));
  // Unbounded as before (each try re-reads the type): only a writer changing it again and again delays it.
  const deprecate = (key: string) => retryOnConflict(async () => {
    const cur = await ctx.registry.get<TypeRecord>(key);
    if (!cur.value || cur.value.status === 'DEPRECATED') return;
    await ctx.registry.update(key, { ...cur.value, status: 'DEPRECATED', deprecationDate: at }, cur.revision);
  });
  for (let i = 0; i < keys.length; i += SWEEP_BATCH) await Promise.all(keys.slice(i, i + SWEEP_BATCH).map(deprecate));
}

export const deprecateDomain = (ctx: ServiceContext, input: unknown) => setDomainStatus(ctx, input, 'DEPRECATED');
export const undeprecateDomain = (ctx: ServiceContext, input: unknown) => setDomainStatus(ctx, input, 'REGISTERED');
