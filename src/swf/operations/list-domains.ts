import { InputReader } from '../../protocol/validate.js';
import type { DomainRecord } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';
import { page } from '../domain-lookup.js';
import { domainInfo } from './describe-domain.js';

export async function listDomains(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const status = r.str('registrationStatus', { max: 16, required: true, oneOf: ['REGISTERED', 'DEPRECATED'] });
  const token = r.str('nextPageToken', { max: 2048 });
  const size = r.pageSize();
  const reverse = r.bool('reverseOrder') ?? false;
  r.done();
  const all = (await ctx.registry.list<DomainRecord>('d')).filter((d) => d.status === status && (ctx.allowsDomain?.(d.name) ?? true))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (reverse) all.reverse();
  const p = page(all, size, token);
  return { domainInfos: p.items.map(domainInfo), nextPageToken: p.nextPageToken };
}
