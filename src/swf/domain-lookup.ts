import { Fault, fault } from '../protocol/faults.js';
import type { DomainRecord, TypeKind, TypeRecord } from '../registry/records.js';
import type { ServiceContext } from '../service/context.js';

/** The domain record, or UnknownResourceFault (`fresh`: read past the cache, for answers that show the record). */
export async function requireDomain(ctx: ServiceContext, name: string, opts: { fresh?: boolean } = {}): Promise<{ value: DomainRecord; revision: number }> {
  const d = await ctx.registry.domain(name, opts);
  if (!d.value) throw fault.unknownDomain(name);
  return { value: d.value, revision: d.revision };
}

export const typeLabel = (kind: TypeKind, t: { name: string; version: string }) =>
  `${kind === 'workflow' ? 'WorkflowType' : 'ActivityType'}=[name=${t.name}, version=${t.version}]`;

/** The type record, or UnknownResourceFault. */
export async function requireType(ctx: ServiceContext, kind: TypeKind, domain: string, t: { name: string; version: string },
  opts: { fresh?: boolean } = {}): Promise<{ value: TypeRecord; revision: number }> {
  const rec = await ctx.registry.type(kind, domain, t.name, t.version, opts);
  if (!rec.value) throw new Fault('UnknownResourceFault', `Unknown type: ${typeLabel(kind, t)}`);
  return { value: rec.value, revision: rec.revision };
}

/** Pages a sorted list with an opaque token holding the offset. */
export function page<T>(items: T[], pageSize: number | undefined, token: string | undefined): { items: T[]; nextPageToken?: string } {
  let start = 0;
  if (token !== undefined) {
    const n = Number(Buffer.from(token, 'base64url').toString());
    if (!Number.isInteger(n) || n < 0) throw new Fault('ValidationException', 'Invalid nextPageToken');
    start = n;
  }
  const size = pageSize && pageSize > 0 ? pageSize : 1000;
  const slice = items.slice(start, start + size);
  const next = start + size < items.length ? Buffer.from(String(start + size)).toString('base64url') : undefined;
  return { items: slice, nextPageToken: next };
}
