import { Fault } from '../protocol/faults.js';
import type { ServiceContext } from '../service/context.js';
import { domainNameOfArn } from '../protocol/domain-arn.js';
import { ALL_DOMAINS } from './access-keys.js';

/** SWF actions that name their domain in `name`, in `resourceArn`, or through a task token; the rest use `domain`. */
const DOMAIN_BY_NAME = new Set(['RegisterDomain', 'DescribeDomain', 'DeprecateDomain', 'UndeprecateDomain']);
const DOMAIN_BY_ARN = new Set(['TagResource', 'UntagResource', 'ListTagsForResource']);
const DOMAIN_BY_TOKEN: Readonly<Record<string, 'd' | 'a'>> = {
  RespondDecisionTaskCompleted: 'd',
  RecordActivityTaskHeartbeat: 'a',
  RespondActivityTaskCompleted: 'a',
  RespondActivityTaskFailed: 'a',
  RespondActivityTaskCanceled: 'a',
};
/** Not about one domain: answered with the allowed domains only (ServiceContext.allowsDomain). */
const DOMAIN_FILTERED = new Set(['ListDomains']);

/** The domain one SWF request is about, `undefined` when it names none (a forged task token is refused as the operation would refuse it). */
export function domainOfRequest(ctx: Pick<ServiceContext, 'region' | 'account' | 'tokens'>, action: string, input: Readonly<Record<string, unknown>>): string | undefined {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (DOMAIN_BY_NAME.has(action)) return str(input.name);
  if (DOMAIN_BY_ARN.has(action)) {
    const arn = str(input.resourceArn);
    return arn === undefined ? undefined : domainNameOfArn(ctx, arn);
  }
  const kind = Object.hasOwn(DOMAIN_BY_TOKEN, action) ? DOMAIN_BY_TOKEN[action] : undefined;
  if (kind) {
    const token = str(input.taskToken);
    return token === undefined ? undefined : ctx.tokens.decodeTaskToken(token, kind).domain;
  }
  return str(input.domain);
}

/** The part of `authorizeDomains` that needs no input: a limited key may not use Step Functions without `*`. */
export function authorizeService(domains: ReadonlySet<string> | undefined, caller: string, target: { service: string; action: string }): void {
  if (domains === undefined || domains.has(ALL_DOMAINS) || target.service === 'SimpleWorkflowService') return;
  throw new Fault('AccessDeniedException', `User: ${caller} is not authorized to perform: states:${target.action.slice(0, 100)} (the access key is limited to SWF domains)`);
}

/**
 * The check for an access key limited to `domains` (AF_ACCESS_KEYS `AKID:SECRET:a|b`), made once by
 * the HTTP gateway before any operation runs, so every operation is covered without code of its own.
 * SWF: the request's domain must be listed, else OperationNotPermittedFault (a request that names no
 * domain is refused too); ListDomains is filtered instead. Step Functions has no domains: refused
 * with AccessDeniedException unless the list holds `*`. Returns the context the operation runs with.
 */
export function authorizeDomains(ctx: ServiceContext, domains: ReadonlySet<string> | undefined, caller: string,
  target: { service: string; action: string }, input: Readonly<Record<string, unknown>>): ServiceContext {
  authorizeService(domains, caller, target);
  if (domains === undefined || domains.has(ALL_DOMAINS)) return ctx;
  if (DOMAIN_FILTERED.has(target.action)) return { ...ctx, allowsDomain: (name) => domains.has(name) };
  const domain = domainOfRequest(ctx, target.action, input);
  if (domain === undefined || !domains.has(domain)) {
    const resource = domain === undefined ? 'a request that names no domain' : `resource: arn:aws:swf:${ctx.region}:${ctx.account}:/domain/${domain}`;
    throw new Fault('OperationNotPermittedFault', `User: ${caller} is not authorized to perform: swf:${target.action} on ${resource}`);
  }
  return ctx;
}
