import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { Registry, RegistryConflictError } from '../../registry/registry.js';
import type { DomainRecord } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';

const MAX_DOMAINS = 100;

export async function registerDomain(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const name = r.id('name', true);
  const description = r.str('description', { max: 1024 });
  const retention = r.str('workflowExecutionRetentionPeriodInDays', { min: 1, max: 8, required: true });
  const tags = r.list('tags', { max: 50 }, (t) => ({ key: t.str('key', { min: 1, max: 128, required: true }), value: t.str('value', { max: 256 }) }));
  if (retention !== undefined && retention !== 'NONE' && !(/^\d+$/.test(retention) && Number(retention) <= 90)) {
    r.problem('workflowExecutionRetentionPeriodInDays', retention, 'Member must be NONE or a number of days from 0 to 90');
  }
  r.done();
  if ((await ctx.registry.list('d')).length >= MAX_DOMAINS) throw new Fault('LimitExceededFault', `at most ${MAX_DOMAINS} domains`);
  const rec: DomainRecord = {
    name, status: 'REGISTERED', description, retentionDays: retention!, tags: tags ?? [],
    arn: `arn:aws:swf:${ctx.region}:${ctx.account}:/domain/${name}`,
  };
  try {
    await ctx.registry.create(Registry.domainKey(name), rec);
  } catch (e) {
    if (e instanceof RegistryConflictError) throw new Fault('DomainAlreadyExistsFault', name);
    throw e;
  }
  return {};
}
