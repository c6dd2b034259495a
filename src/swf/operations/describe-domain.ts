import { InputReader } from '../../protocol/validate.js';
import type { DomainRecord } from '../../registry/records.js';
import type { ServiceContext } from '../../service/context.js';
import { requireDomain } from '../domain-lookup.js';

export const domainInfo = (d: DomainRecord) => ({ name: d.name, status: d.status, description: d.description, arn: d.arn });

export async function describeDomain(ctx: ServiceContext, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const name = r.id('name', true);
  r.done();
  const { value } = await requireDomain(ctx, name, { fresh: true });
  return { domainInfo: domainInfo(value), configuration: { workflowExecutionRetentionPeriodInDays: value.retentionDays } };
}
